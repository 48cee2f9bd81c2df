package dev.loam.otlp;

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
 * Layering (STYLE.md §10): the receiver talks to a node through {@code dev.loam.api} only (the
 * build's forbiddenapis check keeps loam-core's internals out on bytecode); its main code imports
 * nothing but Loam's public packages, loam-http's public settings types and the bearer token, quota
 * bucket and API exception it shares with the HTTP API, the OTLP protobuf classes, protobuf, gRPC
 * (through grpc-netty-shaded only), Netty, Jackson, SLF4J and the JDK. Its public package exposes
 * no gRPC, Netty or protobuf type.
 */
class OtlpLayeringTest {
  private static final Pattern IMPORT =
      Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);
  private static final List<String> ALLOWED =
      List.of(
          "java.",
          "dev.loam.api.",
          "dev.loam.error.",
          "dev.loam.otlp.",
          "dev.loam.tls.",
          "dev.loam.http.Authentication",
          "dev.loam.http.IngestQuota",
          "dev.loam.http.internal.ApiException",
          "dev.loam.http.internal.BearerToken",
          "dev.loam.http.internal.TokenBucket",
          "io.opentelemetry.proto.",
          "com.google.protobuf.",
          "com.google.rpc.",
          "io.grpc.",
          "io.netty.",
          "com.fasterxml.jackson.",
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
          if (imported.startsWith("io.grpc.netty.")
              && !imported.startsWith("io.grpc.netty.shaded.")) {
            offenders.add(f.getFileName() + ": unshaded grpc-netty " + imported);
          }
        }
      }
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void thePublicApiExposesNoFrameworkType() throws Exception {
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : List.of(OtlpReceiver.class, OtlpSettings.class, OtlpStats.class)) {
      for (var m : c.getMethods()) {
        if (m.getDeclaringClass() == Object.class) {
          continue;
        }
        List<Class<?>> types = new ArrayList<>(List.of(m.getParameterTypes()));
        types.add(m.getReturnType());
        for (Class<?> t : types) {
          String n = t.getName();
          if (n.startsWith("io.grpc") || n.startsWith("io.netty") || n.startsWith("com.google")) {
            leaks.add(c.getSimpleName() + "." + m.getName() + ": " + n);
          }
        }
      }
    }
    assertThat(leaks).isEmpty();
  }
}
