package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Kcat}'s lookup and install: a kcat is found only where the PATH says, and with a PATH that
 * hides it the Debian package is installed (on a machine that has it, apt-get reports it current)
 * and its binary is found through dpkg.
 */
class KcatTest {
  @TempDir Path tmp;

  @Test
  void findsOnlyAnExecutableFileNamedKcatOnThePathGiven() throws Exception {
    Path a = Files.createDirectories(tmp.resolve("a"));
    Path b = Files.createDirectories(tmp.resolve("b"));
    Path c = Files.createDirectories(tmp.resolve("c"));
    String path = a + ":" + b + "::" + c;
    assertThat(Kcat.onPath(path)).isEmpty();
    // A directory named kcat and a file that is not executable are skipped.
    Files.createDirectories(a.resolve("kcat"));
    Path plain = Files.writeString(b.resolve("kcat"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(plain, PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(Kcat.onPath(path)).isEmpty();
    Path exe = Files.writeString(c.resolve("kcat"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Kcat.onPath(path)).contains(exe);
    // The first directory that has one wins.
    Files.setPosixFilePermissions(plain, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Kcat.onPath(path)).contains(plain);
  }

  @Test
  void installsTheDebianPackageWhenThePathHidesKcat() throws Exception {
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    Path installed = Kcat.resolve(empty.toString());
    assertThat(installed.getFileName()).hasToString("kcat");
    assertThat(Files.isExecutable(installed)).isTrue();
    // The binary found through dpkg is a working kcat built on librdkafka.
    Process p =
        new ProcessBuilder(List.of(installed.toString(), "-V")).redirectErrorStream(true).start();
    String version =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).isZero();
    assertThat(version).contains("kcat").contains("librdkafka");
  }
}
