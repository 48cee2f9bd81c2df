package dev.loam.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The client's own classes refer to no Loam server module and no Netty (STYLE.md §10): an
 * application gets the JDK HTTP client, Jackson and SLF4J, nothing else. Reads the compiled
 * classes' constant pools, where every referenced class name appears.
 */
class ClientLayeringTest {
  static final List<String> FORBIDDEN =
      List.of("dev/loam/api/", "dev/loam/core/", "dev/loam/meta/", "dev/loam/http/", "io/netty/");

  @Test
  void mainClassesReferenceNoServerModule() throws IOException, URISyntaxException {
    Path classes =
        Path.of(LoamClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> violations = new ArrayList<>();
    int checked = 0;
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
        checked++;
        String pool = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        for (String bad : FORBIDDEN) {
          if (pool.contains(bad)) {
            violations.add(classes.relativize(f) + " refers to " + bad);
          }
        }
      }
    }
    assertThat(checked).as("classes checked").isGreaterThan(20);
    assertThat(violations).isEmpty();
  }
}
