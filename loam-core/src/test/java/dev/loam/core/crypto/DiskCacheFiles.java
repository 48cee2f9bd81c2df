package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks a node's disk cache directory while the cache may still be writing: its files appear as
 * temporary files and are renamed into place, so a listing can name a file that is gone when it is
 * read. The check passes only on a listing that held no temporary file and whose every file was
 * read.
 */
final class DiskCacheFiles {
  private DiskCacheFiles() {}

  /** Asserts that no file of the cache under {@code dir} holds {@code mark} (ISO-8859-1 bytes). */
  static void assertNoneContains(Path dir, String mark) {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      boolean settled = true;
      for (Path f : files(dir)) {
        if (f.getFileName().toString().endsWith(".tmp")) {
          settled = false;
        }
        byte[] bytes;
        try {
          bytes = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
          settled = false; // renamed into place or evicted since the listing
          continue;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        assertThat(new String(bytes, StandardCharsets.ISO_8859_1))
            .as("disk cache file %s", f)
            .doesNotContain(mark);
      }
      if (settled) {
        return;
      }
      assertThat(System.nanoTime())
          .as("the disk cache under %s stops writing", dir)
          .isLessThan(deadline);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** The regular files under {@code dir}; entries that vanish during the walk are skipped. */
  private static List<Path> files(Path dir) {
    List<Path> out = new ArrayList<>();
    try {
      Files.walkFileTree(
          dir,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (attrs.isRegularFile()) {
                out.add(file);
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
              }
              throw new UncheckedIOException(e);
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
