package dev.loam.store.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVMs share one store directory and race to create the same keys: each key must be won by
 * exactly one process, hold that process's bytes, and no temp file may be listed or left behind.
 * This is the property the embedded store exists for (a node and a tool, or two nodes, on one
 * disk).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FileSystemObjectStoreMultiProcessIT {
  private static final int PROCESSES = 3;
  private static final int KEYS = 150;
  private static final long WAIT_SECONDS = 120;

  @TempDir Path dir;

  @Test
  void processesRacingCreatesHaveExactlyOneWinnerPerKey() throws Exception {
    Path root = dir.resolve("store");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> processes = new ArrayList<>();
    List<LinkedBlockingQueue<String>> outputs = new ArrayList<>();
    ExecutorService readers = Executors.newFixedThreadPool(PROCESSES);
    try {
      for (int p = 0; p < PROCESSES; p++) {
        ProcessBuilder pb =
            new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                MultiProcessCreateMain.class.getName(),
                root.toString(),
                "p" + p,
                Integer.toString(KEYS));
        pb.redirectError(dir.resolve("p" + p + ".err").toFile());
        Process process = pb.start();
        processes.add(process);
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        outputs.add(lines);
        readers.execute(() -> drain(process, lines));
      }
      // Start gate: every child has opened its store before any of them writes.
      for (int p = 0; p < PROCESSES; p++) {
        assertThat(nextLine(outputs.get(p), p)).isEqualTo("READY");
      }
      for (Process process : processes) {
        OutputStream stdin = process.getOutputStream();
        stdin.write("GO\n".getBytes(StandardCharsets.UTF_8));
        stdin.flush();
      }
      Map<String, List<String>> winners = new HashMap<>();
      for (int p = 0; p < PROCESSES; p++) {
        int decided = 0;
        for (String line = nextLine(outputs.get(p), p); !line.equals("DONE"); ) {
          if (line.startsWith("WON ")) {
            winners.computeIfAbsent(line.substring(4), k -> new ArrayList<>()).add("p" + p);
          } else {
            assertThat(line).startsWith("LOST ");
          }
          decided++;
          line = nextLine(outputs.get(p), p);
        }
        assertThat(decided).as("keys decided by p%d", p).isEqualTo(KEYS);
      }
      for (int p = 0; p < PROCESSES; p++) {
        assertThat(processes.get(p).waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(processes.get(p).exitValue()).as("exit of p%d", p).isZero();
      }

      ExecutorService io = Executors.newFixedThreadPool(2);
      try (FileSystemObjectStore store =
          new FileSystemObjectStore(root, io, InstantSource.fixed(Instant.EPOCH))) {
        for (int k = 0; k < KEYS; k++) {
          String key = MultiProcessCreateMain.key(k);
          assertThat(winners.get(key)).as("winners of %s", key).hasSize(1);
          assertThat(store.get(key).join())
              .isEqualTo(MultiProcessCreateMain.content(winners.get(key).get(0), k));
        }
        List<ObjectInfo> listed = new ArrayList<>();
        String startAfter = "";
        while (true) {
          ListPage page = store.list("", startAfter, 40).join();
          listed.addAll(page.objects());
          if (page.nextStartAfter().isEmpty()) {
            break;
          }
          startAfter = page.nextStartAfter().get();
        }
        assertThat(listed).hasSize(KEYS);
        assertThat(winners).hasSize(KEYS);
      } finally {
        io.shutdownNow();
      }
      try (Stream<Path> files = Files.walk(root)) {
        assertThat(files.filter(f -> f.getFileName().toString().startsWith("~")))
            .as("temp files left behind")
            .isEmpty();
      }
    } finally {
      for (Process process : processes) {
        process.destroyForcibly();
      }
      readers.shutdownNow();
    }
  }

  private static void drain(Process process, LinkedBlockingQueue<String> lines) {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("IO-ERROR " + e);
    }
    lines.add("EOF");
  }

  private String nextLine(LinkedBlockingQueue<String> lines, int p) throws Exception {
    String line = lines.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(line).as("output of p%d", p).isNotNull();
    if (line.equals("EOF") || line.startsWith("IO-ERROR")) {
      throw new AssertionError(
          "p"
              + p
              + " ended early: "
              + line
              + "; stderr:\n"
              + Files.readString(dir.resolve("p" + p + ".err")));
    }
    return line;
  }
}
