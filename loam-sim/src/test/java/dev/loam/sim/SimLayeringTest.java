package dev.loam.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The simulation's layering (STYLE.md §10), as a plain source scan: the harness pieces at the root
 * of {@code dev.loam.sim} stand below the actors and the checks, the checks judge without acting,
 * and only {@link Simulation} wires the three together. It also keeps the simulation's own code
 * free of ambient time, randomness and threads (STYLE.md §5), which would break replay. The seed
 * runner ({@code dev.loam.sim.runner}) is outside the simulated world: it reads the wall clock and
 * starts worker processes, so it is exempt, and nothing in the simulation may use it.
 */
class SimLayeringTest {
  private static final Path MAIN = Path.of("src/main/java/dev/loam/sim");
  private static final Path RUNNER = MAIN.resolve("runner");

  @Test
  void checksNeverImportActors() throws IOException {
    assertThat(offenders(MAIN.resolve("check"), "import dev.loam.sim.actor.")).isEmpty();
  }

  @Test
  void onlySimulationImportsActorsAndChecks() throws IOException {
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.list(MAIN)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        String src = Files.readString(f);
        boolean imports =
            src.contains("import dev.loam.sim.actor.")
                || src.contains("import dev.loam.sim.check.");
        if (imports && !f.getFileName().toString().equals("Simulation.java")) {
          offenders.add(f.toString());
        }
      }
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void noAmbientTimeRandomnessOrThreads() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (String banned :
        List.of(
            "new Random(",
            "Math.random(",
            "ThreadLocalRandom",
            "UUID.randomUUID",
            "System.currentTimeMillis",
            "System.nanoTime",
            "Instant.now(",
            "Thread.sleep",
            "new Thread(")) {
      offenders.addAll(offenders(MAIN, banned));
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void theSimulationNeverUsesTheRunner() throws IOException {
    assertThat(offenders(MAIN, "dev.loam.sim.runner")).isEmpty();
  }

  /** The files under {@code dir} that contain {@code text}, each with the text. */
  private static List<String> offenders(Path dir, String text) throws IOException {
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f :
          (Iterable<Path>)
              files.filter(p -> p.toString().endsWith(".java") && !p.startsWith(RUNNER))
                  ::iterator) {
        if (Files.readString(f).contains(text)) {
          offenders.add(f + ": " + text);
        }
      }
    }
    return offenders;
  }
}
