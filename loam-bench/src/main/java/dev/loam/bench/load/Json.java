package dev.loam.bench.load;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A small JSON writer for the bench report: maps, lists, strings, numbers, booleans, null. */
public final class Json {
  private Json() {}

  /** Serialises {@code value} with two-space indentation. */
  public static String write(Object value) {
    StringBuilder b = new StringBuilder();
    write(b, value, 0);
    return b.append('\n').toString();
  }

  /**
   * Six significant digits without trailing zeros after the decimal point: {@code %.6g} writes
   * 235840.4 as {@code 235840}, whose zero is a digit, not padding, so only a fraction is trimmed.
   */
  static String sixDigits(double d) {
    String s = String.format(Locale.ROOT, "%.6g", d);
    int e = s.indexOf('e');
    String mantissa = e < 0 ? s : s.substring(0, e);
    String exponent = e < 0 ? "" : s.substring(e);
    if (mantissa.indexOf('.') >= 0) {
      mantissa = mantissa.replaceFirst("\\.?0+$", "");
    }
    return mantissa + exponent;
  }

  private static void write(StringBuilder b, Object v, int indent) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof String s) {
      string(b, s);
    } else if (v instanceof Boolean bool) {
      b.append(bool);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        b.append("null");
      } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        b.append((long) d);
      } else {
        b.append(sixDigits(d));
      }
    } else if (v instanceof Number n) {
      b.append(n.longValue());
    } else if (v instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        b.append("{}");
        return;
      }
      b.append("{\n");
      Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        pad(b, indent + 1);
        string(b, String.valueOf(e.getKey()));
        b.append(": ");
        write(b, e.getValue(), indent + 1);
        b.append(it.hasNext() ? ",\n" : "\n");
      }
      pad(b, indent);
      b.append('}');
    } else if (v instanceof List<?> l) {
      if (l.isEmpty()) {
        b.append("[]");
        return;
      }
      boolean flat = l.stream().allMatch(x -> x instanceof Number);
      b.append(flat ? "[" : "[\n");
      for (int i = 0; i < l.size(); i++) {
        if (!flat) {
          pad(b, indent + 1);
        }
        write(b, l.get(i), indent + 1);
        if (i + 1 < l.size()) {
          b.append(flat ? ", " : ",\n");
        }
      }
      if (!flat) {
        b.append('\n');
        pad(b, indent);
      }
      b.append(']');
    } else {
      string(b, v.toString());
    }
  }

  private static void pad(StringBuilder b, int indent) {
    b.append("  ".repeat(indent));
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
