package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API speaks its own types: no public signature of {@code dev.loam.api} names a type of
 * loam-wal's byte formats ({@code dev.loam.wal}), so a host never imports them. (The errors of
 * {@code dev.loam.error} are shared by every module and allowed.)
 */
class ApiSignatureTest {
  @Test
  void noPublicSignatureNamesAWalType() throws Exception {
    List<String> offending = new ArrayList<>();
    for (Class<?> c : apiClasses()) {
      if (!Modifier.isPublic(c.getModifiers())) {
        continue;
      }
      for (Method m : c.getDeclaredMethods()) {
        if (Modifier.isPublic(m.getModifiers())) {
          check(offending, c, m.toGenericString());
        }
      }
      for (Constructor<?> k : c.getDeclaredConstructors()) {
        if (Modifier.isPublic(k.getModifiers())) {
          check(offending, c, k.toGenericString());
        }
      }
    }
    assertThat(offending).isEmpty();
  }

  private static void check(List<String> offending, Class<?> c, String signature) {
    if (signature.contains("dev.loam.wal.")) {
      offending.add(c.getSimpleName() + ": " + signature);
    }
  }

  private static List<Class<?>> apiClasses()
      throws IOException, URISyntaxException, ClassNotFoundException {
    Path dir = Path.of(Log.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path pkg = dir.resolve("dev/loam/api");
    List<Class<?>> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(pkg)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String name = p.getFileName().toString();
        out.add(Class.forName("dev.loam.api." + name.substring(0, name.length() - 6)));
      }
    }
    assertThat(out).hasSizeGreaterThan(20);
    return out;
  }
}
