package dev.loam.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The flags of one command, declared once as a table, which parses the command line and writes the
 * {@code --help} text. A launcher declares each flag with one line, in the order the help lists
 * them, while its class initialises:
 *
 * <pre>{@code
 * static final Command CMD = new Command("loam server", "Serves the native HTTP API.");
 * static final Flag<Integer> PORT =
 *     CMD.flag("--port|--http-port", "N", Values.port(), 8080, "the HTTP port (0 = any free one)");
 * static final Flag<Boolean> VERBOSE = CMD.toggle("--verbose", "print every request");
 * ...
 * ParsedArgs a = CMD.parse(args);   // a UsageException names the flag and the bad value
 * int port = a.get(PORT);
 * }</pre>
 *
 * <p>Accepted forms: {@code --flag value}, {@code --flag=value}, a switch alone ({@code --flag}),
 * and {@code -h} or {@code --help} anywhere, which makes {@link ParsedArgs#help()} true and skips
 * every other check. A flag given twice, an unknown flag and a stray argument are refused: a
 * command line means one thing. The declaration methods are not thread-safe; declare the flags
 * during class initialisation and parse from any thread afterwards.
 */
public final class Command {
  private static final int HELP_COLUMN = 32;

  private final String name;
  private final String summary;
  private final List<Flag<?>> flags = new ArrayList<>();
  private final Map<String, Flag<?>> byName = new LinkedHashMap<>();

  /**
   * @param name how the command is typed, e.g. {@code loam node}
   * @param summary what it does: a few lines shown under the usage line of the help
   */
  public Command(String name, String summary) {
    this.name = name;
    this.summary = summary;
  }

  public String name() {
    return name;
  }

  /** Every flag, in the order declared (the order of the help). */
  public List<Flag<?>> flags() {
    return Collections.unmodifiableList(flags);
  }

  /** The flag with this name or alias. */
  public Optional<Flag<?>> flag(String flagName) {
    return Optional.ofNullable(byName.get(flagName));
  }

  /**
   * Declares a flag with a default value.
   *
   * @param names the name, then any aliases, separated by {@code |} ({@code --http-port|--port})
   * @param metavar the value's placeholder in the help ({@code PORT})
   */
  public <T> Flag<T> flag(
      String names, String metavar, ValueParser<T> parser, T defaultValue, String help) {
    String shown =
        defaultValue instanceof Enum<?> e
            ? e.name().toLowerCase(Locale.ROOT)
            : String.valueOf(defaultValue);
    return add(new Flag<>(split(names), metavar, parser, defaultValue, shown, false, help));
  }

  /**
   * Declares a flag whose value is null when not given, the command then deciding (a value derived
   * from other flags, a default of a library setting). {@code defaultText} says what the help shows
   * instead of a default value ({@code http://HOST:PORT}, {@code none}).
   */
  public <T> Flag<T> optional(
      String names, String metavar, ValueParser<T> parser, String defaultText, String help) {
    return add(new Flag<>(split(names), metavar, parser, null, defaultText, false, help));
  }

  /** Declares a flag that must be given. */
  public <T> Flag<T> required(String names, String metavar, ValueParser<T> parser, String help) {
    return add(new Flag<>(split(names), metavar, parser, null, "required", true, help));
  }

  /** Declares a switch: a flag without a value, false unless given. */
  public Flag<Boolean> toggle(String names, String help) {
    return add(
        new Flag<>(split(names), null, t -> Boolean.TRUE, Boolean.FALSE, "off", false, help));
  }

  private <T> Flag<T> add(Flag<T> f) {
    for (String n : f.names()) {
      if (n.equals("--help") || byName.containsKey(n)) {
        throw new IllegalStateException(name + " declares " + n + " twice");
      }
    }
    flags.add(f);
    f.names().forEach(n -> byName.put(n, f));
    return f;
  }

  private static List<String> split(String names) {
    return Arrays.asList(names.split("\\|"));
  }

  /**
   * Parses {@code args}: every value parsed and every required flag present, or a {@link
   * UsageException} naming the first flag at fault. With {@code -h} or {@code --help} anywhere
   * nothing else is checked and {@link ParsedArgs#help()} is true.
   */
  public ParsedArgs parse(String... args) {
    for (String a : args) {
      if (a.equals("-h") || a.equals("--help")) {
        return new ParsedArgs(Map.of(), true);
      }
    }
    Map<Flag<?>, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String inline = null;
      int eq = a.indexOf('=');
      if (a.startsWith("--") && eq > 0) {
        inline = a.substring(eq + 1);
        a = a.substring(0, eq);
      }
      Flag<?> f = byName.get(a);
      if (f == null) {
        if (!a.startsWith("-")) {
          throw new UsageException(null, "unexpected argument " + a + " (flags start with --)");
        }
        throw new UsageException(a, "unknown option (" + name + " --help lists the options)");
      }
      if (values.containsKey(f)) {
        throw new UsageException(f.name(), "given twice");
      }
      if (f.isSwitch()) {
        if (inline != null) {
          throw new UsageException(f.name(), "takes no value, got " + inline);
        }
        values.put(f, Boolean.TRUE);
        continue;
      }
      String text = inline;
      if (text == null) {
        if (i + 1 >= args.length) {
          throw new UsageException(f.name(), "missing value " + f.metavar());
        }
        text = args[++i];
      }
      values.put(f, f.parse(text));
    }
    for (Flag<?> f : flags) {
      if (f.required() && !values.containsKey(f)) {
        throw new UsageException(f.name(), "required (" + f.help() + ")");
      }
    }
    return new ParsedArgs(values, false);
  }

  /** The {@code --help} text: usage, summary, then one line per flag with default and meaning. */
  public String help() {
    StringBuilder b = new StringBuilder();
    b.append("usage: ").append(name).append(" [options]\n");
    for (String line : summary.split("\n")) {
      b.append("  ").append(line).append('\n');
    }
    b.append("\noptions:\n");
    for (Flag<?> f : flags) {
      String left = f.name() + (f.isSwitch() ? "" : " " + f.metavar());
      StringBuilder right = new StringBuilder(f.help());
      right.append(f.required() ? " (required)" : " (default: " + f.defaultText() + ")");
      if (f.names().size() > 1) {
        right.append(" [also ").append(String.join(", ", f.names().subList(1, f.names().size())));
        right.append(']');
      }
      row(b, left, right.toString());
    }
    row(b, "-h, --help", "print this help and exit");
    return b.toString();
  }

  private static void row(StringBuilder b, String left, String right) {
    b.append("  ").append(left);
    int pad = HELP_COLUMN - 2 - left.length();
    b.append(" ".repeat(Math.max(1, pad))).append(right).append('\n');
  }

  /** Prints a usage error the way every launcher does: the message, then where the help is. */
  public void printUsageError(UsageException e, PrintStream err) {
    err.println(name + ": " + e.getMessage());
    err.println("(" + name + " --help lists every option)");
  }
}
