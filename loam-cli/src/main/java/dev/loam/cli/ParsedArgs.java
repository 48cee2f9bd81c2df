package dev.loam.cli;

import java.util.Map;
import java.util.Set;

/**
 * A parsed command line: the value of every flag given, the defaults of the others. Made by {@link
 * Command#parse}; immutable.
 */
public final class ParsedArgs {
  private final Map<Flag<?>, Object> values;
  private final boolean help;

  ParsedArgs(Map<Flag<?>, Object> values, boolean help) {
    this.values = Map.copyOf(values);
    this.help = help;
  }

  /** True when {@code -h} or {@code --help} was given; nothing else was parsed then. */
  public boolean help() {
    return help;
  }

  /** The flag's value: as given, else its default (null for an optional flag not given). */
  @SuppressWarnings("unchecked")
  public <T> T get(Flag<T> flag) {
    Object v = values.get(flag);
    return v != null ? (T) v : flag.defaultValue();
  }

  /** True when the command line gave this flag. */
  public boolean given(Flag<?> flag) {
    return values.containsKey(flag);
  }

  /** The flags the command line gave. */
  public Set<Flag<?>> givenFlags() {
    return values.keySet();
  }
}
