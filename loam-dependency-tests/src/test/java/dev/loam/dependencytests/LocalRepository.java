package dev.loam.dependencytests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This build's published artifacts as a host sees them: the module list of the root POM, and a copy
 * of each module's POM and jar into a local repository at the path {@code mvn install} uses.
 */
final class LocalRepository {
  /** Modules of the root POM that are not published (examples, benchmarks, this module). */
  static final Set<String> UNPUBLISHED =
      Set.of("loam-embedded-examples", "loam-bench", "loam-dependency-tests");

  /** Published modules built as a POM only. */
  static final Set<String> POM_ONLY = Set.of("loam-bom");

  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

  private LocalRepository() {}

  /** The published modules of the build rooted at {@code root}, in the root POM's order. */
  static List<String> publishedModules(Path root) throws IOException {
    List<String> out = new ArrayList<>();
    Matcher m = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
    while (m.find()) {
      if (!UNPUBLISHED.contains(m.group(1))) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /**
   * Copies loam-parent's POM and every published module's POM and jar (from its {@code target/})
   * into {@code repo}. Fails naming the module whose jar is missing: the modules must have been
   * packaged first, as the reactor does before this module's tests.
   */
  static void stage(Path root, Path repo, String version) throws IOException {
    copy(root.resolve("pom.xml"), repo, "loam-parent", version, "pom");
    for (String module : publishedModules(root)) {
      Path dir = root.resolve(module);
      copy(dir.resolve("pom.xml"), repo, module, version, "pom");
      if (POM_ONLY.contains(module)) {
        continue;
      }
      Path jar = dir.resolve("target").resolve(module + "-" + version + ".jar");
      if (!Files.isRegularFile(jar)) {
        throw new IllegalStateException(
            "the jar of "
                + module
                + " is not built; run the whole reactor (mvn verify) jar="
                + jar);
      }
      copy(jar, repo, module, version, "jar");
    }
  }

  private static void copy(Path from, Path repo, String artifact, String version, String ext)
      throws IOException {
    Path dir = repo.resolve("dev/loam").resolve(artifact).resolve(version);
    Files.createDirectories(dir);
    Files.copy(
        from,
        dir.resolve(artifact + "-" + version + "." + ext),
        StandardCopyOption.REPLACE_EXISTING);
  }
}
