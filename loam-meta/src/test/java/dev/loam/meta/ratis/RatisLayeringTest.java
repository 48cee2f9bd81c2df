package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Layering (STYLE.md §10): Ratis stays inside {@code dev.loam.meta.ratis}, and the public API of
 * that package exposes no Ratis type, so a caller never compiles against Ratis.
 */
class RatisLayeringTest {
  @Test
  void onlyTheRatisPackageImportsRatis() throws IOException {
    Path main = Path.of("src/main/java");
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(main)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        boolean inRatisPackage = main.relativize(f).startsWith(Path.of("dev/loam/meta/ratis"));
        if (!inRatisPackage && Files.readString(f).contains("org.apache.ratis")) {
          offenders.add(f.toString());
        }
      }
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void publicApiHasNoRatisTypes() {
    List<String> leaks = new ArrayList<>();
    for (Class<?> c :
        List.of(RatisMetastore.class, RatisSettings.class, RatisSettings.Builder.class)) {
      for (Method m : c.getMethods()) {
        if (!Modifier.isPublic(m.getModifiers())) {
          continue;
        }
        List<Type> types = new ArrayList<>(List.of(m.getGenericParameterTypes()));
        types.add(m.getGenericReturnType());
        types.addAll(List.of(m.getGenericExceptionTypes()));
        for (Type t : types) {
          if (t.getTypeName().contains("org.apache.ratis")) {
            leaks.add(c.getSimpleName() + "." + m.getName() + " " + t.getTypeName());
          }
        }
      }
    }
    assertThat(leaks).isEmpty();
  }
}
