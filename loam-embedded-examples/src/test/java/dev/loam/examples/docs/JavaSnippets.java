package dev.loam.examples.docs;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Turns a {@code java} block of the docs into a class with a {@code main} and compiles it against
 * the test class path: the block's {@code import} lines stay imports, the rest becomes the body of
 * {@code main} (which may throw anything); a block that is a single expression is printed.
 */
final class JavaSnippets {
  static final String CLASS = "DocSnippet";

  private JavaSnippets() {}

  /** The source of the class for {@code block}, with {@code replacements} applied to its text. */
  static String source(MarkdownExamples.Block block, Map<String, String> replacements) {
    String text = block.text();
    for (Map.Entry<String, String> e : replacements.entrySet()) {
      text = text.replace(e.getKey(), e.getValue());
    }
    List<String> imports = new ArrayList<>();
    for (String arg : block.modeArgs().split(" ")) {
      if (arg.startsWith("imports=")) {
        for (String i : arg.substring("imports=".length()).split(",")) {
          imports.add("import " + i + ";");
        }
      }
    }
    StringBuilder body = new StringBuilder();
    for (String l : text.split("\n")) {
      if (l.startsWith("import ")) {
        imports.add(l);
      } else {
        body.append("    ").append(l).append('\n');
      }
    }
    String b = body.toString().strip();
    boolean expression = !b.contains(";") && !b.contains("{");
    StringBuilder src = new StringBuilder();
    imports.forEach(i -> src.append(i).append('\n'));
    src.append("\npublic class ").append(CLASS).append(" {\n");
    src.append("  public static void main(String[] args) throws Exception {\n");
    src.append("    // ").append(block.where()).append('\n');
    if (expression) {
      src.append("    Object value = ").append(b).append(";\n");
      src.append("    System.out.println(value);\n");
    } else {
      src.append("    ").append(b).append('\n');
    }
    src.append("  }\n}\n");
    return src.toString();
  }

  /** Compiles {@code source} into {@code outDir}; a compile error fails with the diagnostics. */
  static void compile(String source, Path outDir) throws IOException {
    Path src = Files.createDirectories(outDir.resolve("src")).resolve(CLASS + ".java");
    Files.writeString(src, source, StandardCharsets.UTF_8);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    boolean ok =
        javac
            .getTask(
                diagnostics,
                null,
                null,
                List.of(
                    "-classpath",
                    System.getProperty("java.class.path"),
                    "-d",
                    outDir.toString(),
                    "-proc:none",
                    "-encoding",
                    "UTF-8"),
                null,
                javac
                    .getStandardFileManager(null, null, StandardCharsets.UTF_8)
                    .getJavaFileObjects(src))
            .call();
    if (!ok) {
      throw new AssertionError(
          "the doc's Java snippet does not compile:\n" + diagnostics + "\nas compiled:\n" + source);
    }
  }
}
