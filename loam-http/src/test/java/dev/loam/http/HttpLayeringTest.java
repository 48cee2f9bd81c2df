package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Layering (STYLE.md §10): the HTTP library talks to a node through {@code dev.loam.api}. The
 * process launchers, which pick a metastore (Ratis) and may wrap the store in a fault injector,
 * live in loam-embedded-examples, so nothing here reaches into the metastore.
 */
class HttpLayeringTest {
  @Test
  void mainCodeDoesNotImportTheMetastore() throws IOException {
    Path main = Path.of("src/main/java");
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(main)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        String src = Files.readString(f);
        if (src.contains("dev.loam.meta.") || src.contains("org.apache.ratis")) {
          offenders.add(f.toString());
        }
      }
    }
    assertThat(offenders).isEmpty();
  }
}
