package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Layering (STYLE.md §10): the gateway talks to a node through {@code dev.loam.api} only (the
 * build's forbiddenapis check keeps loam-core's internals out on bytecode); its own code imports
 * nothing but Loam's public packages, kafka-clients' protocol classes (and its admin client, with
 * which a node forwards owner-bound topic admin to the owner), Netty, SLF4J and the JDK (with its
 * SASL and callback interfaces, which kafka-clients' SASL servers implement, and its MAC, with
 * which forwarding tokens are made).
 */
class KafkaLayeringTest {
  private static final Pattern IMPORT =
      Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);
  private static final List<String> ALLOWED =
      List.of(
          "java.",
          "javax.security.sasl.",
          "javax.security.auth.callback.",
          "javax.crypto.",
          "dev.loam.api.",
          "dev.loam.error.",
          "dev.loam.kafka.",
          "dev.loam.tls.",
          "org.apache.kafka.common.",
          "org.apache.kafka.clients.admin.",
          "io.netty.",
          "org.slf4j.");

  @Test
  void mainCodeImportsOnlyThePublicApiAndItsLibraries() throws IOException {
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        Matcher m = IMPORT.matcher(Files.readString(f));
        while (m.find()) {
          String imported = m.group(2);
          if (ALLOWED.stream().noneMatch(imported::startsWith)) {
            offenders.add(f.getFileName() + ": " + imported);
          }
        }
      }
    }
    assertThat(offenders).isEmpty();
  }
}
