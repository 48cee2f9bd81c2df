package dev.loam.cli;

import java.util.List;
import java.util.Objects;

/**
 * One flag of a {@link Command}: its name and aliases, the placeholder of its value (none for a
 * switch), how its text becomes a value, what it is when not given, and a one-line meaning. Made by
 * the {@code Command} methods that declare flags; immutable.
 *
 * @param <T> the value's type
 */
public final class Flag<T> {
  private final List<String> names;
  private final String metavar;
  private final ValueParser<T> parser;
  private final T defaultValue;
  private final String defaultText;
  private final boolean required;
  private final String help;

  Flag(
      List<String> names,
      String metavar,
      ValueParser<T> parser,
      T defaultValue,
      String defaultText,
      boolean required,
      String help) {
    if (names.isEmpty() || names.stream().anyMatch(n -> !n.matches("--[a-z0-9][a-z0-9-]*"))) {
      throw new IllegalArgumentException("flag names are --lower-case-words, got " + names);
    }
    if (help == null || help.isBlank() || help.contains("\n")) {
      throw new IllegalArgumentException(
          "a flag's help is one line, got " + help + " for " + names);
    }
    this.names = List.copyOf(names);
    this.metavar = metavar;
    this.parser = parser;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.required = required;
    this.help = help;
  }

  /** The flag's name, e.g. {@code --http-port}. */
  public String name() {
    return names.get(0);
  }

  /** The name and its aliases (e.g. {@code --http-port}, {@code --port}). */
  public List<String> names() {
    return names;
  }

  /** True for a switch, which takes no value ({@code --kill-leader}). */
  public boolean isSwitch() {
    return metavar == null;
  }

  /** The placeholder of the value in the help ({@code PORT}), or null for a switch. */
  public String metavar() {
    return metavar;
  }

  public boolean required() {
    return required;
  }

  /** The value when the flag is not given (null when there is none, or it is computed later). */
  public T defaultValue() {
    return defaultValue;
  }

  /** How the help shows the default: {@code required}, the value, or what decides it. */
  public String defaultText() {
    return defaultText;
  }

  public String help() {
    return help;
  }

  /** Parses {@code text} as this flag's value; a problem is a {@link UsageException} naming it. */
  public T parse(String text) {
    Objects.requireNonNull(text, "text");
    try {
      return Objects.requireNonNull(parser.parse(text), "a value parser returned null");
    } catch (UsageException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new UsageException(name(), e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return name();
  }
}
