package dev.loam.http.internal;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a JSON parse failure into a message a client can act on: what was wrong in JSON's own
 * terms, where (line, column and the member being read, as {@code records[0].value}), and never the
 * parser's class names, feature flags or source descriptions. The parser's message is only
 * classified here, never passed on: its wording belongs to the library, not to the API.
 */
final class JsonErrors {
  private static final Pattern CHAR = Pattern.compile("\\('(.)' \\(code (\\d+)\\)\\)");
  private static final Pattern QUOTED = Pattern.compile("'([^']*)'");
  private static final Pattern CTRL = Pattern.compile("CTRL-CHAR, code (\\d+)");
  private static final int MAX_TOKEN_CHARS = 40;

  private JsonErrors() {}

  /** The message for a failed parse of a request body. */
  static String describe(JsonProcessingException e) {
    String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    StringBuilder m = new StringBuilder("malformed JSON");
    JsonLocation loc = e.getLocation();
    if (loc != null && loc.getLineNr() > 0) {
      m.append(" at line ").append(loc.getLineNr()).append(", column ").append(loc.getColumnNr());
    }
    String member = member(e);
    if (!member.isEmpty()) {
      // Waiting for the next member, the parser still names the one it finished.
      boolean after =
          original.contains("to start field name") || original.contains("separate Object entries");
      m.append(after ? " (after " : " (in ").append(member).append(')');
    }
    return m.append(": ").append(what(original)).toString();
  }

  private static String what(String o) {
    if (o.startsWith("Unexpected end-of-input")) {
      return "the body ends before the JSON is complete (an object, array or string is not"
          + " closed)";
    }
    if (o.startsWith("Unrecognized token")) {
      return "unexpected text "
          + quote(first(QUOTED, o))
          + "; a value is a string in double quotes, a number, an object, an array, true, false"
          + " or null";
    }
    if (o.startsWith("Duplicate field")) {
      return "duplicate member " + quote(first(QUOTED, o));
    }
    if (o.startsWith("Trailing token")) {
      return "more data after the end of the JSON object; the body must be one JSON object";
    }
    if (o.startsWith("Illegal unquoted character")) {
      Matcher c = CTRL.matcher(o);
      String code =
          c.find() ? String.format(Locale.ROOT, "U+%04X", Integer.parseInt(c.group(1))) : "";
      return "a control character "
          + code
          + " inside a string must be escaped (\\n, \\t or \\u00XX)";
    }
    if (o.startsWith("Unrecognized character escape")) {
      return "invalid escape in a string (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)";
    }
    if (o.startsWith("Invalid UTF-8") || o.contains("Invalid UTF-8")) {
      return "the body is not valid UTF-8";
    }
    if (o.startsWith("Non-standard token")) {
      return "NaN and Infinity are not JSON numbers";
    }
    if (o.startsWith("Leading zeroes") || o.startsWith("Invalid numeric value")) {
      return "invalid number (JSON numbers have no leading zeros, and digits after a sign or a"
          + " decimal point)";
    }
    if (o.startsWith("Unexpected close marker")) {
      return "a closing bracket or brace that matches nothing open";
    }
    if (o.startsWith("Unexpected character")) {
      String c = character(o);
      if (o.contains("double-quote to start field name")) {
        return "unexpected "
            + c
            + " where a member name in double quotes was expected (a trailing comma, or a name"
            + " without double quotes)";
      }
      if (o.contains("comma to separate Object entries")) {
        return "unexpected " + c + " where a comma or the end of the object was expected";
      }
      if (o.contains("comma to separate Array entries")) {
        return "unexpected " + c + " where a comma or the end of the array was expected";
      }
      if (o.contains("colon to separate")) {
        return "unexpected " + c + " where a colon after the member name was expected";
      }
      return "unexpected " + c + " where a value was expected";
    }
    return "the body is not valid JSON";
  }

  /** The member being read, as {@code records[2].value}, or empty at the top level. */
  private static String member(JsonProcessingException e) {
    if (!(e.getProcessor() instanceof JsonParser p)) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    for (JsonStreamContext c = p.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
      if (c.inArray()) {
        parts.add("[" + Math.max(0, c.getCurrentIndex()) + "]");
      } else if (c.inObject() && c.getCurrentName() != null) {
        parts.add("." + c.getCurrentName());
      }
    }
    Collections.reverse(parts);
    String path = String.join("", parts);
    return path.startsWith(".") ? path.substring(1) : path;
  }

  private static String first(Pattern p, String s) {
    Matcher m = p.matcher(s);
    return m.find() ? m.group(1) : "";
  }

  private static String character(String o) {
    Matcher m = CHAR.matcher(o);
    if (!m.find()) {
      return "character";
    }
    int code = Integer.parseInt(m.group(2));
    return code >= 0x20 && code < 0x7f
        ? "character '" + m.group(1) + "'"
        : String.format(Locale.ROOT, "character U+%04X", code);
  }

  private static String quote(String token) {
    String t =
        token.length() > MAX_TOKEN_CHARS ? token.substring(0, MAX_TOKEN_CHARS) + "..." : token;
    return "'" + t + "'";
  }
}
