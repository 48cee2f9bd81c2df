package dev.loam.store;

import dev.loam.error.LoamException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * The one definition of a store URI's query parameters (STYLE.md §7): each parameter's name, type,
 * default and description, and how its text is parsed, checked and applied to a target (a settings
 * builder or record). The same table parses the URI and renders the configuration reference ({@link
 * #toMarkdown()}, kept in docs/reference/configuration-stores.md by a test), so the two cannot
 * drift apart.
 *
 * <p>A table only parses values: how the query is split and percent-decoded, and which properties
 * override it, stay with each provider, because those differ per scheme and users rely on them.
 * Values of {@linkplain Parameter#secret() secret} parameters never appear in a message.
 *
 * @param <T> what the parameters are applied to; every apply returns the (possibly new) target
 */
public final class UriParameters<T> {

  /** A value that does not parse for its parameter; INVALID, naming the parameter. */
  public static final class InvalidParameterException extends LoamException {
    private static final long serialVersionUID = 1L;

    private final String parameter;

    InvalidParameterException(String parameter, String message) {
      super(Kind.INVALID, message);
      this.parameter = parameter;
    }

    /** The name of the parameter whose value was refused. */
    public String parameter() {
      return parameter;
    }
  }

  /**
   * One parameter.
   *
   * @param name the query name, lower-case words joined by {@code -}, units last ({@code -ms})
   * @param type the type as the reference shows it ({@code integer}, {@code milliseconds}, …)
   * @param defaultValue the default as the reference shows it
   * @param description what it sets, one line
   * @param secret whether the value is a secret (never echoed)
   * @param apply parses the text and sets the value on the target
   */
  public record Parameter<T>(
      String name,
      String type,
      String defaultValue,
      String description,
      boolean secret,
      BiFunction<T, String, T> apply) {
    public Parameter {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(defaultValue, "defaultValue");
      Objects.requireNonNull(description, "description");
      Objects.requireNonNull(apply, "apply");
    }

    /** {@code target} with {@code value} applied; a value that does not parse fails INVALID. */
    public T applyTo(T target, String value) {
      return apply.apply(target, value);
    }
  }

  private final List<Parameter<T>> parameters;

  private UriParameters(List<Parameter<T>> parameters) {
    this.parameters = List.copyOf(parameters);
  }

  /** An empty table to add parameters to, in the order the reference lists them. */
  public static <T> Builder<T> builder() {
    return new Builder<>();
  }

  /** Every parameter, in table order. */
  public List<Parameter<T>> parameters() {
    return parameters;
  }

  /** The parameter called {@code name}, if the table has one. */
  public Optional<Parameter<T>> find(String name) {
    for (Parameter<T> p : parameters) {
      if (p.name().equals(name)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Every parameter name, in table order. */
  public Set<String> names() {
    Set<String> names = new LinkedHashSet<>();
    for (Parameter<T> p : parameters) {
      names.add(p.name());
    }
    return Collections.unmodifiableSet(names);
  }

  /** The table as a markdown table: parameter, type, default, description. */
  public String toMarkdown() {
    StringBuilder out = new StringBuilder();
    out.append("| parameter | type | default | description |\n");
    out.append("| --- | --- | --- | --- |\n");
    for (Parameter<T> p : parameters) {
      out.append("| `")
          .append(p.name())
          .append("` | ")
          .append(p.secret() ? p.type() + " (secret)" : p.type())
          .append(" | ")
          .append(cell(p.defaultValue()))
          .append(" | ")
          .append(cell(p.description()))
          .append(" |\n");
    }
    return out.toString();
  }

  /**
   * {@code document} with the lines between {@code <!-- generated: id -->} and {@code <!-- end
   * generated: id -->} replaced by {@link #toMarkdown()}: how a test keeps a reference page equal
   * to the table. Fails if either marker is missing.
   */
  public String spliceInto(String document, String id) {
    String begin = "<!-- generated: " + id + " -->\n";
    String end = "<!-- end generated: " + id + " -->";
    int from = document.indexOf(begin);
    int to = document.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("no generated section in the document id=" + id);
    }
    return document.substring(0, from + begin.length()) + toMarkdown() + document.substring(to);
  }

  private static String cell(String s) {
    // Escaped so that a placeholder such as <account> is shown, not taken for an HTML tag.
    return s.isEmpty() ? "—" : s.replace("|", "\\|").replace("<", "\\<");
  }

  /** Adds parameters by type; each typed adder parses with the checks named on it. */
  public static final class Builder<T> {
    private final List<Parameter<T>> parameters = new ArrayList<>();

    private Builder() {}

    /** A parameter of any type, parsed by {@code apply}. */
    public Builder<T> add(Parameter<T> p) {
      for (Parameter<T> q : parameters) {
        if (q.name().equals(p.name())) {
          throw new IllegalArgumentException("parameter defined twice parameter=" + p.name());
        }
      }
      parameters.add(p);
      return this;
    }

    /** A text value, taken as it is. */
    public Builder<T> string(
        String name, String dflt, String description, BiFunction<T, String, T> set) {
      return add(new Parameter<>(name, "string", dflt, description, false, set));
    }

    /** A secret text value, taken as it is and never echoed. */
    public Builder<T> secret(
        String name, String dflt, String description, BiFunction<T, String, T> set) {
      return add(new Parameter<>(name, "string", dflt, description, true, set));
    }

    /** A text value turned into {@code V} by {@code parse}, which throws INVALID naming it. */
    public <V> Builder<T> parsed(
        String name,
        String type,
        String dflt,
        String description,
        Function<String, V> parse,
        BiFunction<T, V, T> set) {
      return add(
          new Parameter<>(
              name, type, dflt, description, false, (t, v) -> set.apply(t, parse.apply(v))));
    }

    /** {@code true} or {@code false}, nothing else. */
    public Builder<T> bool(
        String name, String dflt, String description, BiFunction<T, Boolean, T> set) {
      return parsed(name, "boolean", dflt, description, v -> parseBoolean(name, v), set);
    }

    /** A whole number that fits an {@code int}. */
    public Builder<T> integer(
        String name, String dflt, String description, BiFunction<T, Integer, T> set) {
      return number(
          name,
          "integer",
          dflt,
          description,
          Integer.MIN_VALUE,
          Integer.MAX_VALUE,
          n -> (int) n,
          set);
    }

    /** A whole number that fits a {@code long}. */
    public Builder<T> longValue(
        String name, String dflt, String description, BiFunction<T, Long, T> set) {
      return number(
          name, "integer", dflt, description, Long.MIN_VALUE, Long.MAX_VALUE, n -> n, set);
    }

    /** A whole number of milliseconds. */
    public Builder<T> millis(
        String name, String dflt, String description, BiFunction<T, Duration, T> set) {
      return number(
          name,
          "milliseconds",
          dflt,
          description,
          Long.MIN_VALUE,
          Long.MAX_VALUE,
          Duration::ofMillis,
          set);
    }

    /**
     * A whole number in {@code min..max}, turned into {@code V} by {@code convert}; {@code type} is
     * what the reference shows.
     */
    public <V> Builder<T> number(
        String name,
        String type,
        String dflt,
        String description,
        long min,
        long max,
        LongFunction<V> convert,
        BiFunction<T, V, T> set) {
      return parsed(
          name, type, dflt, description, v -> convert.apply(parseLong(name, v, min, max)), set);
    }

    /** The table. */
    public UriParameters<T> build() {
      return new UriParameters<>(parameters);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // typed parsing, for the adders above and for providers' own parsers

  /** {@code true} or {@code false}; anything else fails naming {@code name}. */
  public static boolean parseBoolean(String name, String value) {
    if (value.equals("true")) {
      return true;
    }
    if (value.equals("false")) {
      return false;
    }
    throw invalid(name, "expected true or false " + name + "=" + value);
  }

  /** A whole number in {@code min..max}; anything else fails naming {@code name}. */
  public static long parseLong(String name, String value, long min, long max) {
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw invalid(name, "expected a whole number " + name + "=" + value);
    }
    if (n < min || n > max) {
      throw invalid(name, "number out of range " + name + "=" + value);
    }
    return n;
  }

  /** An INVALID failure of parameter {@code name}; {@code message} ends with {@code name=value}. */
  public static InvalidParameterException invalid(String name, String message) {
    return new InvalidParameterException(name, message);
  }
}
