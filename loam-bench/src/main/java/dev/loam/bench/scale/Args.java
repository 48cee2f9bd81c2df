package dev.loam.bench.scale;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The scale benchmarks' arguments: {@code name=value} words. A word without {@code =}, a name given
 * twice, a name the benchmark does not read, or a value that is not a positive integer fails with
 * an IllegalArgumentException naming it.
 */
final class Args {
  private final Map<String, String> values;
  private final Set<String> read = new HashSet<>();

  private Args(Map<String, String> values) {
    this.values = values;
  }

  static Args parse(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("arguments are name=value, got '" + a + "'");
      }
      if (m.put(a.substring(0, eq), a.substring(eq + 1)) != null) {
        throw new IllegalArgumentException("argument given twice: " + a.substring(0, eq));
      }
    }
    return new Args(m);
  }

  /** The positive integer {@code name}, or {@code otherwise} when absent. */
  int integer(String name, int otherwise) {
    read.add(name);
    String v = values.get(name);
    if (v == null) {
      return otherwise;
    }
    int i;
    try {
      i = Integer.parseInt(v.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is a positive integer, got '" + v + "'", e);
    }
    if (i < 1) {
      throw new IllegalArgumentException(name + " is a positive integer, got '" + v + "'");
    }
    return i;
  }

  /** Fails if an argument was given that no {@link #integer} call read. */
  void done() {
    for (String name : values.keySet()) {
      if (!read.contains(name)) {
        throw new IllegalArgumentException("unknown argument: " + name + " (known: " + read + ")");
      }
    }
  }
}
