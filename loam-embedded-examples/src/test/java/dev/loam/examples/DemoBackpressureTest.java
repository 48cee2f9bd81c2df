package dev.loam.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./loam demo} on a slow store: the appends it keeps in flight are bounded by bytes (half
 * the 64 MiB write buffer), so a store that answers late slows the demo down instead of overflowing
 * the buffer ({@code write buffer full}, exit 1); and the WAL objects it reports are the ones the
 * store holds.
 */
class DemoBackpressureTest {
  @TempDir Path dir;

  @Test
  void aSlowStoreCausesBackpressureNotAFullWriteBuffer() throws Exception {
    // 100 MB in appends of 100 KB: with the former 2,048 appends in flight (200 MB) the buffer
    // overflowed as soon as the first objects were slow to land.
    String out =
        runDemo(
            "--data-dir",
            dir.toString(),
            "--store",
            "test-slow://mem?createMs=300",
            "--records",
            "100000",
            "--value-bytes",
            "1000",
            "--flush-ms",
            "50");
    assertThat(out).contains("OK: every record read back in order with its content");
    assertThat(out).doesNotContain("write buffer full");
    SlowStoreProvider.SlowStore store = SlowStoreProvider.LAST.get();
    assertThat(walObjectsLine(out)).isEqualTo(store.walObjects.get());
  }

  @Test
  void theWalObjectLineCountsEveryObjectOfTheRun() throws Exception {
    // Read right after the last acknowledgement: the flush that carried it must be counted.
    for (int i = 0; i < 8; i++) {
      String out =
          runDemo(
              "--data-dir",
              dir.resolve("run-" + i).toString(),
              "--store",
              "test-slow://mem?createMs=" + (i % 4) * 7,
              "--records",
              Integer.toString(500 + 97 * i),
              "--records-per-append",
              Integer.toString(1 + i % 5),
              "--flush-ms",
              Integer.toString(1 + i % 3));
      assertThat(out).contains("OK:");
      assertThat(walObjectsLine(out))
          .as("run %d", i)
          .isEqualTo(SlowStoreProvider.LAST.get().walObjects.get());
    }
  }

  @Test
  void theBudgetIsHalfTheWriteBufferAndCoversTheEncoding() {
    assertThat(Demo.inFlightBytes(dev.loam.api.NodeSettings.defaults())).isEqualTo(32L << 20);
    // 100 records of 1 KB to 3 partitions: payload, framing, three batch headers.
    assertThat(Demo.cost(100_000, 100, 3)).isEqualTo(100_000 + 3_200 + 192);
  }

  private static long walObjectsLine(String out) {
    Matcher m = Pattern.compile("write path: (\\d+) WAL objects").matcher(out);
    assertThat(m.find()).as(out).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static String runDemo(String... args) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code;
    try (PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      code = Demo.run(args);
    } finally {
      System.setOut(original);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    original.print(out);
    assertThat(code).as(out).isZero();
    return out;
  }
}
