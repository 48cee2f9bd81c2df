package dev.loam.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the tests' tools output (kcat's {@code -J}): objects become {@link Map},
 * arrays {@link List}, numbers {@link Long} or {@link Double}, plus strings, booleans and null.
 * Anything else, or trailing input, is an {@link IllegalArgumentException} naming the position.
 */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  /** The one JSON value {@code text} holds. */
  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) {
      throw p.error("trailing input");
    }
    return v;
  }

  private Object value() {
    ws();
    if (i >= s.length()) {
      throw error("unexpected end");
    }
    char c = s.charAt(i);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++;
    ws();
    if (peek() == '}') {
      i++;
      return m;
    }
    while (true) {
      ws();
      if (peek() != '"') {
        throw error("expected a key");
      }
      String k = string();
      ws();
      expect(':');
      m.put(k, value());
      ws();
      if (peek() == ',') {
        i++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    i++;
    ws();
    if (peek() == ']') {
      i++;
      return l;
    }
    while (true) {
      l.add(value());
      ws();
      if (peek() == ',') {
        i++;
      } else {
        expect(']');
        return l;
      }
    }
  }

  private String string() {
    StringBuilder b = new StringBuilder();
    i++;
    while (true) {
      if (i >= s.length()) {
        throw error("unterminated string");
      }
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = s.charAt(i++);
      switch (e) {
        case 'n' -> b.append('\n');
        case 't' -> b.append('\t');
        case 'r' -> b.append('\r');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'u' -> {
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
        }
        case '"', '\\', '/' -> b.append(e);
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  private Object number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    String n = s.substring(start, i);
    if (n.isEmpty()) {
      throw error("unexpected character");
    }
    try {
      return n.contains(".") || n.contains("e") || n.contains("E")
          ? (Object) Double.parseDouble(n)
          : (Object) Long.parseLong(n);
    } catch (NumberFormatException e) {
      throw error("bad number " + n);
    }
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, i)) {
      throw error("unexpected character");
    }
    i += word.length();
    return v;
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    i++;
  }

  private char peek() {
    return i < s.length() ? s.charAt(i) : '\0';
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at " + i + " of JSON: " + s);
  }
}
