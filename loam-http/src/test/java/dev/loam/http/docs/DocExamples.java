package dev.loam.http.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The curl examples of a Markdown page and their shown answers, with the conventions written at the
 * top of the examples of docs/reference/http-api.md:
 *
 * <ul>
 *   <li>a command is a line of a {@code sh} block that starts with {@code curl} (continued over the
 *       next lines while it ends with {@code \} or a quote is open); a line {@code NAME=value} sets
 *       a shell variable for the commands after it;
 *   <li>a trailing {@code # NNN ...} comment on the command, or a next line starting {@code # NNN},
 *       is the expected status; without one any 2xx is expected (or the status line of a shown
 *       {@code -i} answer);
 *   <li>the lines after a command up to the next command are its shown answer: for {@code -i}, a
 *       status line and headers, a blank line, then the body;
 *   <li>in a shown JSON body, {@code ...} stands for members or elements left out, and {@code
 *       <varies>} (quoted or not) for a value that differs from run to run: the member must exist,
 *       its value is not compared;
 *   <li>a block after a line {@code <!-- example: not run ... -->} is not run (it needs a second
 *       node, a quota, a failure...).
 * </ul>
 */
final class DocExamples {
  static final String VARIES = "<varies>";
  static final String ELIDED = "...";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern STATUS = Pattern.compile("^#\\s*(\\d{3})\\b");
  private static final Pattern ASSIGN = Pattern.compile("^([A-Z][A-Z0-9_]*)=(\\S+)$");

  /** One runnable line: a variable assignment ({@code command} null) or a curl command. */
  record Example(
      int line,
      String command,
      String variable,
      String value,
      Integer expectedStatus,
      List<String> shown) {
    boolean isAssignment() {
      return command == null;
    }
  }

  private DocExamples() {}

  /** The examples of a page, in order, from the blocks that are run. */
  static List<Example> parse(List<String> lines) {
    List<Example> out = new ArrayList<>();
    boolean inSh = false;
    boolean skip = false;
    boolean skipNext = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String t = line.trim();
      if (!inSh) {
        if (t.startsWith("<!-- example: not run")) {
          skipNext = true;
        } else if (t.equals("```sh")) {
          inSh = true;
          skip = skipNext;
          skipNext = false;
        } else if (t.startsWith("```")) {
          skipNext = false;
        }
        continue;
      }
      if (t.equals("```")) {
        inSh = false;
        continue;
      }
      if (skip) {
        continue;
      }
      Matcher a = ASSIGN.matcher(t);
      if (a.matches()) {
        out.add(new Example(i + 1, null, a.group(1), a.group(2), null, List.of()));
        continue;
      }
      if (!t.startsWith("curl ")) {
        continue; // an answer of no command in this block (shown for illustration)
      }
      int start = i;
      StringBuilder cmd = new StringBuilder(line);
      while (continues(cmd.toString()) && i + 1 < lines.size()) {
        cmd.append('\n').append(lines.get(++i));
      }
      String command = stripComment(cmd.toString());
      Integer status = statusOf(commentOf(cmd.toString()));
      List<String> shown = new ArrayList<>();
      while (i + 1 < lines.size()) {
        String next = lines.get(i + 1);
        String nt = next.trim();
        if (nt.equals("```") || nt.startsWith("curl ") || ASSIGN.matcher(nt).matches()) {
          break;
        }
        i++;
        if (nt.startsWith("#")) {
          if (status == null && shown.isEmpty()) {
            status = statusOf(nt);
          }
          continue;
        }
        shown.add(next);
      }
      while (!shown.isEmpty() && shown.get(shown.size() - 1).isBlank()) {
        shown.remove(shown.size() - 1);
      }
      out.add(new Example(start + 1, command, null, null, status, shown));
    }
    return out;
  }

  private static Integer statusOf(String comment) {
    if (comment == null) {
      return null;
    }
    Matcher m = STATUS.matcher(comment.trim());
    return m.find() ? Integer.valueOf(m.group(1)) : null;
  }

  /** Whether a command goes on to the next line: a trailing backslash or an open quote. */
  private static boolean continues(String cmd) {
    String code = stripComment(cmd);
    return code.stripTrailing().endsWith("\\") || quoteOpen(code);
  }

  private static boolean quoteOpen(String s) {
    char q = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (q == 0 && (c == '\'' || c == '"')) {
        q = c;
      } else if (q == c) {
        q = 0;
      }
    }
    return q != 0;
  }

  /** The position of a {@code #} comment outside quotes (after white space), or -1. */
  private static int commentAt(String s) {
    char q = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (q == 0 && (c == '\'' || c == '"')) {
        q = c;
      } else if (q == c) {
        q = 0;
      } else if (q == 0 && c == '#' && i > 0 && Character.isWhitespace(s.charAt(i - 1))) {
        return i;
      }
    }
    return -1;
  }

  static String stripComment(String cmd) {
    int at = commentAt(cmd);
    return at < 0 ? cmd : cmd.substring(0, at).stripTrailing();
  }

  private static String commentOf(String cmd) {
    int at = commentAt(cmd);
    return at < 0 ? null : cmd.substring(at);
  }

  // ------------------------------------------------------------------ shown JSON

  /**
   * Parses a shown JSON body: {@code ...} becomes a member {@code "...": true} in an object and an
   * element {@code "..."} in an array, an unquoted {@code <varies>} the string {@code "<varies>"}.
   */
  static JsonNode parsePattern(String shown) throws IOException {
    StringBuilder out = new StringBuilder();
    List<Character> stack = new ArrayList<>();
    boolean inString = false;
    for (int i = 0; i < shown.length(); i++) {
      char c = shown.charAt(i);
      if (inString) {
        out.append(c);
        if (c == '\\') {
          out.append(shown.charAt(++i));
        } else if (c == '"') {
          inString = false;
        }
        continue;
      }
      if (c == '"') {
        inString = true;
        out.append(c);
      } else if (c == '{' || c == '[') {
        stack.add(c);
        out.append(c);
      } else if (c == '}' || c == ']') {
        stack.remove(stack.size() - 1);
        out.append(c);
      } else if (shown.startsWith(ELIDED, i) || c == '\u2026') {
        boolean inObject = !stack.isEmpty() && stack.get(stack.size() - 1) == '{';
        out.append(inObject ? "\"...\":true" : "\"...\"");
        i += c == '\u2026' ? 0 : ELIDED.length() - 1;
      } else if (shown.startsWith(VARIES, i)) {
        out.append('"').append(VARIES).append('"');
        i += VARIES.length() - 1;
      } else {
        out.append(c);
      }
    }
    return JSON.readTree(out.toString());
  }

  /** Null when {@code actual} matches {@code pattern}, else what differs (with its path). */
  static String mismatch(JsonNode pattern, JsonNode actual, String path) {
    if (pattern.isTextual() && pattern.asText().equals(VARIES)) {
      return actual == null || actual.isMissingNode() ? path + " is missing" : null;
    }
    if (actual == null || actual.isMissingNode()) {
      return path + " is missing (shown " + pattern + ")";
    }
    if (pattern.isObject()) {
      if (!actual.isObject()) {
        return path + " is " + actual + ", shown an object";
      }
      boolean open = pattern.has(ELIDED);
      for (Iterator<Map.Entry<String, JsonNode>> it = pattern.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getKey().equals(ELIDED)) {
          continue;
        }
        String m = mismatch(e.getValue(), actual.get(e.getKey()), path + "." + e.getKey());
        if (m != null) {
          return m;
        }
      }
      if (!open) {
        for (Iterator<String> it = actual.fieldNames(); it.hasNext(); ) {
          String name = it.next();
          if (!pattern.has(name)) {
            return path + "." + name + " is in the answer but not shown (and no ... stands for it)";
          }
        }
      }
      return null;
    }
    if (pattern.isArray()) {
      if (!actual.isArray()) {
        return path + " is " + actual + ", shown an array";
      }
      return matchArray(pattern, 0, actual, 0, path)
          ? null
          : path + " is " + actual + ", shown " + pattern;
    }
    return pattern.equals(actual)
            || (pattern.isNumber()
                && actual.isNumber()
                && pattern.decimalValue().compareTo(actual.decimalValue()) == 0)
        ? null
        : path + " is " + actual + ", shown " + pattern;
  }

  /** Glob match of array elements: an {@code ...} element matches any run of elements. */
  private static boolean matchArray(JsonNode p, int pi, JsonNode a, int ai, String path) {
    if (pi == p.size()) {
      return ai == a.size();
    }
    JsonNode e = p.get(pi);
    if (e.isTextual() && e.asText().equals(ELIDED)) {
      for (int k = ai; k <= a.size(); k++) {
        if (matchArray(p, pi + 1, a, k, path)) {
          return true;
        }
      }
      return false;
    }
    return ai < a.size()
        && mismatch(e, a.get(ai), path + "[" + ai + "]") == null
        && matchArray(p, pi + 1, a, ai + 1, path);
  }

  /**
   * Null when every shown text line appears in {@code actual}'s lines in order ({@code ...} lines
   * skip any, {@code <varies>} matches one word), else the first line not found.
   */
  static String textMismatch(List<String> shown, String actual) {
    List<String> lines = actual.lines().toList();
    int at = 0;
    for (String s : shown) {
      if (s.trim().equals(ELIDED)) {
        continue;
      }
      Pattern p =
          Pattern.compile(
              Pattern.quote(s.trim()).replace(VARIES, "\\E\\S+\\Q").replace("\\Q\\E", ""));
      boolean found = false;
      while (at < lines.size()) {
        if (p.matcher(lines.get(at++).trim()).matches()) {
          found = true;
          break;
        }
      }
      if (!found) {
        return "shown line not in the answer (in order): " + s;
      }
    }
    return null;
  }
}
