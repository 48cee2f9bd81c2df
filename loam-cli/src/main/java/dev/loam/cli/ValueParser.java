package dev.loam.cli;

/**
 * Turns a flag's text into its value. Throws {@link IllegalArgumentException} whose message says
 * what is wrong with the text (for example {@code not an integer: abc}); the {@link Command} puts
 * the flag's name in front of it.
 *
 * @param <T> the value's type
 */
@FunctionalInterface
public interface ValueParser<T> {
  T parse(String text);
}
