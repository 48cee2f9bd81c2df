package dev.loam.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The samples of a Prometheus text exposition (format 0.0.4), for tests that assert what {@code
 * /metrics} reports rather than how it is spelled: {@code name{label="value",...} value} lines,
 * label values unescaped ({@code \\}, {@code \"}, {@code \n}), {@code # TYPE} lines kept, other
 * comments and blank lines skipped. A line of any other shape fails the parse, naming it.
 */
public final class PrometheusSamples {
  /** One sample. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private final List<Sample> samples;
  private final Map<String, String> types;

  private PrometheusSamples(List<Sample> samples, Map<String, String> types) {
    this.samples = List.copyOf(samples);
    this.types = Map.copyOf(types);
  }

  /** Parses {@code text}; IllegalArgumentException naming the first line that is not a sample. */
  public static PrometheusSamples parse(String text) {
    List<Sample> out = new ArrayList<>();
    Map<String, String> types = new LinkedHashMap<>();
    int n = 0;
    for (String line : text.split("\n", -1)) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("#")) {
        String[] t = line.split(" ", 4);
        if (t.length == 4 && t[1].equals("TYPE")) {
          types.put(t[2], t[3]);
        }
        continue;
      }
      try {
        out.add(sample(line));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "line " + n + " is not a sample (" + e.getMessage() + "): " + line, e);
      }
    }
    return new PrometheusSamples(out, types);
  }

  private static Sample sample(String line) {
    int i = 0;
    while (i < line.length() && isNameChar(line.charAt(i), i == 0)) {
      i++;
    }
    if (i == 0) {
      throw new IllegalArgumentException("no metric name");
    }
    String name = line.substring(0, i);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        int start = i;
        while (isNameChar(line.charAt(i), i == start)) {
          i++;
        }
        if (i == start || line.charAt(i) != '=' || line.charAt(i + 1) != '"') {
          throw new IllegalArgumentException("bad label at " + start);
        }
        String label = line.substring(start, i);
        i += 2;
        StringBuilder v = new StringBuilder();
        while (line.charAt(i) != '"') {
          char c = line.charAt(i);
          if (c == '\\') {
            char e = line.charAt(i + 1);
            v.append(
                switch (e) {
                  case 'n' -> '\n';
                  case '\\' -> '\\';
                  case '"' -> '"';
                  default -> throw new IllegalArgumentException("bad escape \\" + e);
                });
            i += 2;
          } else {
            v.append(c);
            i++;
          }
        }
        i++;
        if (labels.put(label, v.toString()) != null) {
          throw new IllegalArgumentException("label " + label + " twice");
        }
        if (line.charAt(i) == ',') {
          i++;
        } else if (line.charAt(i) != '}') {
          throw new IllegalArgumentException("expected , or } at " + i);
        }
      }
      i++;
    }
    if (i >= line.length() || line.charAt(i) != ' ') {
      throw new IllegalArgumentException("no space before the value");
    }
    String[] rest = line.substring(i + 1).split(" ", -1);
    if (rest.length > 2) {
      throw new IllegalArgumentException("trailing text");
    }
    return new Sample(name, labels, number(rest[0]));
  }

  private static double number(String s) {
    return switch (s) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(s);
    };
  }

  private static boolean isNameChar(char c, boolean first) {
    return c == '_'
        || c == ':'
        || (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (!first && c >= '0' && c <= '9');
  }

  /** Every sample, in the exposition's order. */
  public List<Sample> all() {
    return samples;
  }

  /**
   * The {@code # TYPE} of a metric family, if declared; a counter family may be declared with its
   * samples' {@code _total} suffix (format 0.0.4 writers differ), which is looked up too.
   */
  public Optional<String> type(String family) {
    return Optional.ofNullable(types.get(family))
        .or(() -> Optional.ofNullable(types.get(family + "_total")));
  }

  /** The samples named {@code name} whose labels include every entry of {@code labels}. */
  public List<Sample> matching(String name, Map<String, String> labels) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .filter(s -> s.labels().entrySet().containsAll(labels.entrySet()))
        .toList();
  }

  /**
   * The value of the one sample named {@code name} with {@code labels} among its labels;
   * AssertionError when there is none or more than one.
   */
  public double value(String name, Map<String, String> labels) {
    List<Sample> m = matching(name, labels);
    if (m.size() != 1) {
      throw new AssertionError(
          m.size() + " samples " + name + labels + " (expected one) in " + samples);
    }
    return m.get(0).value();
  }

  /** {@link #value(String, Map)} with no label condition. */
  public double value(String name) {
    return value(name, Map.of());
  }

  /** Whether at least one sample is named {@code name}. */
  public boolean has(String name) {
    return samples.stream().anyMatch(s -> s.name().equals(name));
  }
}
