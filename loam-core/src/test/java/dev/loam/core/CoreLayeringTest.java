package dev.loam.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Layering inside loam-core (STYLE.md §10): the rooms of {@code src/main} stand on floors, and
 * every reference points to a lower floor. The public packages ({@code api}, {@code spi}, {@code
 * store}) and the thread/clock drivers ({@code core.runtime}) are the ground that everything may
 * use; above them the shared pieces of {@code dev.loam.core}, the namespace keys of {@code crypto}
 * and the arrow codec seam of {@code arrow}, then {@code read}, {@code ownership} and {@code auth},
 * then {@code write}, {@code maintain} and {@code changelog} (the changelog worker, which reads and
 * appends through the public {@code Log}), then {@code quorum} (the quorum streams' data path over
 * the journal seam of {@code spi.quorum}), and on top {@code node}, the composition root. Rooms on
 * one floor do not reference each other.
 *
 * <p>The one reference that runs back up is {@link #ALLOWED_BACK_REFERENCES}: {@code LoamNode}, the
 * public entry point, builds the node through {@code NodeRuntime}. That list may only shrink.
 *
 * <p>A plain source scan (imports and fully qualified names outside comments), so it needs no
 * bytecode library and reports the file that crossed.
 */
class CoreLayeringTest {
  private static final Map<String, Integer> FLOORS =
      Map.ofEntries(
          Map.entry("api", 0),
          Map.entry("spi", 0),
          Map.entry("store", 0),
          Map.entry("core.runtime", 0),
          Map.entry("core", 1),
          Map.entry("core.crypto", 1),
          Map.entry("core.arrow", 1),
          Map.entry("core.read", 2),
          Map.entry("core.ownership", 2),
          Map.entry("core.auth", 2),
          Map.entry("core.write", 3),
          Map.entry("core.maintain", 3),
          Map.entry("core.changelog", 3),
          Map.entry("core.quorum", 4),
          Map.entry("core.node", 5));

  /** {@code file -> room} references allowed to point up a floor. Only ever shrinks. */
  private static final Set<String> ALLOWED_BACK_REFERENCES =
      Set.of("api/LoamNode.java -> core.node");

  private static final Pattern REFERENCE =
      Pattern.compile("\\bdev\\.loam\\.((?:api|spi|store|core)(?:\\.[a-z]\\w*)*)");

  @Test
  void everyReferencePointsDownAFloor() throws IOException {
    Path main = Path.of("src/main/java");
    Set<String> offenders = new TreeSet<>();
    Set<String> used = new TreeSet<>();
    for (Path f : javaFiles(main)) {
      String rel = main.relativize(f).toString().replace('\\', '/');
      String from = room(main.relativize(f.getParent()).toString().replace('/', '.'));
      assertThat(FLOORS).as("unknown room of %s", rel).containsKey(from);
      String code = withoutComments(Files.readString(f));
      Matcher m = REFERENCE.matcher(code);
      while (m.find()) {
        String to = room("dev.loam." + m.group(1));
        if (to.equals(from) || !FLOORS.containsKey(to)) {
          continue;
        }
        boolean down =
            FLOORS.get(to) < FLOORS.get(from) || FLOORS.get(from) == 0 && FLOORS.get(to) == 0;
        String edge = rel.replaceFirst("^dev/loam/", "") + " -> " + to;
        if (!down) {
          if (ALLOWED_BACK_REFERENCES.contains(edge)) {
            used.add(edge);
          } else {
            offenders.add(edge);
          }
        }
      }
    }
    assertThat(offenders).as("references that point up or sideways").isEmpty();
    assertThat(used)
        .as("allowlisted back references that no longer exist: remove them from the list")
        .containsExactlyInAnyOrderElementsOf(ALLOWED_BACK_REFERENCES);
  }

  @Test
  void everyMainPackageHasAFloor() throws IOException {
    Path main = Path.of("src/main/java");
    List<String> unknown = new ArrayList<>();
    for (Path f : javaFiles(main)) {
      String room = room(main.relativize(f.getParent()).toString().replace('/', '.'));
      if (!FLOORS.containsKey(room)) {
        unknown.add(main.relativize(f).toString());
      }
    }
    assertThat(unknown).as("files in a package this test does not place").isEmpty();
  }

  /**
   * {@code dev.loam.core.read.x} -> {@code core.read}; {@code dev.loam.store.fs} -> {@code store}.
   */
  private static String room(String pkg) {
    String[] p = pkg.split("\\.");
    if (p.length >= 3 && p[2].equals("core")) {
      return p.length == 3 ? "core" : "core." + p[3];
    }
    return p.length >= 3 ? p[2] : pkg;
  }

  private static String withoutComments(String s) {
    return s.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
  }

  private static List<Path> javaFiles(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }
}
