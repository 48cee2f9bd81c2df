package dev.loam.examples.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The examples of a Markdown file, as its readers see them: every fenced code block with the {@code
 * <!-- doc-test: ... -->} marker on the line right before it (if any), and the {@code ./loam}
 * command lines of its blocks and of its inline code spans.
 *
 * <p>Shell blocks are read as a reader would paste them: {@code \} continues a line, {@code #}
 * starts a comment, a trailing {@code &} runs in the background, and {@code NAME=value} lines
 * define variables that later {@code $NAME} and {@code ${NAME}} of the same file expand to.
 */
final class MarkdownExamples {
  /** The marker of a tested block: {@code <!-- doc-test: MODE [ARGS] -->}. */
  static final Pattern MARKER = Pattern.compile("^<!-- doc-test: (\\S+)(?: (.*?))? -->$");

  private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");
  private static final Pattern INLINE_LOAM = Pattern.compile("`(\\./loam(?: [^`]*)?)`");
  private static final Pattern ASSIGNMENT = Pattern.compile("^([A-Z_][A-Z0-9_]*)=(\\S*)$");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Z_][A-Z0-9_]*)\\}?");

  /** The repository root: the parent of this module. */
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  /** A fenced block: where it starts (1-based line of its fence), its language, marker, text. */
  record Block(Path file, int line, String language, String mode, String modeArgs, String text) {
    String where() {
      return ROOT.relativize(file) + ":" + line;
    }

    boolean tested(String m) {
      return m.equals(mode);
    }
  }

  /** A {@code ./loam} command line: where it is, and its words after {@code ./loam}. */
  record CommandLine(String where, List<String> words, boolean synopsis) {
    String command() {
      return words.isEmpty() ? "" : words.get(0);
    }

    List<String> args() {
      return words.isEmpty() ? List.of() : words.subList(1, words.size());
    }

    @Override
    public String toString() {
      return where + ": ./loam " + String.join(" ", words);
    }
  }

  private final Path file;
  private final List<String> lines;

  private MarkdownExamples(Path file, List<String> lines) {
    this.file = file;
    this.lines = lines;
  }

  /** Reads {@code relative} (to the repository root). */
  static MarkdownExamples read(String relative) throws IOException {
    Path f = ROOT.resolve(relative);
    return new MarkdownExamples(f, Files.readAllLines(f, StandardCharsets.UTF_8));
  }

  /** Every fenced block, in order. */
  List<Block> blocks() {
    List<Block> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher open = FENCE.matcher(lines.get(i));
      if (!open.matches()) {
        continue;
      }
      int start = i;
      StringBuilder text = new StringBuilder();
      for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
        text.append(lines.get(i)).append('\n');
      }
      String mode = null;
      String args = null;
      int prev = start - 1;
      while (prev >= 0 && lines.get(prev).isBlank()) {
        prev--;
      }
      if (prev >= 0) {
        Matcher m = MARKER.matcher(lines.get(prev).strip());
        if (m.matches()) {
          mode = m.group(1);
          args = m.group(2) == null ? "" : m.group(2);
        }
      }
      out.add(new Block(file, start + 1, open.group(1), mode, args, text.toString()));
    }
    return out;
  }

  /** The blocks marked with {@code mode}. */
  List<Block> blocks(String mode) {
    return blocks().stream().filter(b -> b.tested(mode)).toList();
  }

  /**
   * The {@code ./loam} command lines of the blocks marked {@code mode}, with the file's variables
   * expanded (an undefined one is an error).
   */
  List<CommandLine> commandLines(String mode) {
    return commandLines(mode, true);
  }

  /**
   * The {@code ./loam} command lines of every block, marked or not; an undefined variable stays as
   * written.
   */
  List<CommandLine> allCommandLines() {
    return commandLines(null, false);
  }

  private List<CommandLine> commandLines(String mode, boolean strict) {
    List<CommandLine> out = new ArrayList<>();
    Map<String, String> vars = new LinkedHashMap<>();
    for (Block b : blocks()) {
      for (String l : logicalLines(b.text())) {
        Matcher a = ASSIGNMENT.matcher(l);
        if (a.matches()) {
          vars.put(a.group(1), expand(a.group(2), vars, strict));
          continue;
        }
        boolean selected = mode == null || b.tested(mode);
        if (selected && (l.equals("./loam") || l.startsWith("./loam "))) {
          out.add(new CommandLine(b.where(), words(expand(l, vars, strict)), false));
        }
      }
    }
    return out;
  }

  /** The flags in the first cell of the file's table rows ({@code | `--id ID` | ...}). */
  List<String> tableFlags() {
    List<String> out = new ArrayList<>();
    Pattern row = Pattern.compile("^\\| `(--[a-z0-9-]+)[^`]*` \\|");
    for (String l : lines) {
      Matcher m = row.matcher(l);
      if (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /**
   * The {@code ./loam ...} inline code spans outside code blocks (synopses, e.g. {@code [--x N]}).
   */
  List<CommandLine> inlineCommandLines() {
    List<CommandLine> out = new ArrayList<>();
    boolean inBlock = false;
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.startsWith("```")) {
        inBlock = !inBlock;
        continue;
      }
      if (inBlock) {
        continue;
      }
      Matcher m = INLINE_LOAM.matcher(l);
      while (m.find()) {
        String where = ROOT.relativize(file) + ":" + (i + 1);
        out.add(new CommandLine(where, words(m.group(1)), true));
      }
    }
    return out;
  }

  /** Lines with continuations joined, comments and a trailing {@code &} removed. */
  static List<String> logicalLines(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (String raw : text.split("\n", -1)) {
      String l = stripComment(raw).stripTrailing();
      boolean continues = l.endsWith("\\");
      cur.append(continues ? l.substring(0, l.length() - 1) : l).append(' ');
      if (!continues) {
        String joined = cur.toString().strip().replaceAll("\\s+", " ");
        if (joined.endsWith("&")) {
          joined = joined.substring(0, joined.length() - 1).strip();
        }
        if (!joined.isEmpty()) {
          out.add(joined);
        }
        cur.setLength(0);
      }
    }
    return out;
  }

  /** Cuts a {@code #} comment that is outside quotes and starts a word. */
  private static String stripComment(String l) {
    char quote = 0;
    for (int i = 0; i < l.length(); i++) {
      char c = l.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (i == 0 || Character.isWhitespace(l.charAt(i - 1)))) {
        return l.substring(0, i);
      }
    }
    return l;
  }

  private static String expand(String s, Map<String, String> vars, boolean strict) {
    Matcher m = VARIABLE.matcher(s);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      String v = vars.get(m.group(1));
      if (v == null && strict) {
        throw new IllegalStateException("undefined shell variable $" + m.group(1) + " in " + s);
      }
      if (v == null) {
        v = m.group();
      }
      m.appendReplacement(b, Matcher.quoteReplacement(v));
    }
    m.appendTail(b);
    return b.toString();
  }

  /** Splits on blanks, keeping single- and double-quoted words whole (quotes removed). */
  static List<String> words(String l) {
    List<String> out = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    char quote = 0;
    boolean any = false;
    for (int i = 0; i < l.length(); i++) {
      char c = l.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          w.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        any = true;
      } else if (Character.isWhitespace(c)) {
        if (any || w.length() > 0) {
          out.add(w.toString());
        }
        w.setLength(0);
        any = false;
      } else {
        w.append(c);
      }
    }
    if (any || w.length() > 0) {
      out.add(w.toString());
    }
    if (!out.isEmpty() && out.get(0).equals("./loam")) {
      out.remove(0);
    }
    return out;
  }
}
