package dev.loam.store.fs;

import dev.loam.spi.store.ObjectExistsException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The child process of {@link FileSystemObjectStoreMultiProcessIT}: opens a store on a shared
 * directory, prints {@code READY}, waits for {@code GO} on stdin (so all children race at once),
 * creates every key with its own content and prints {@code WON <key>} or {@code LOST <key>} for
 * each, then {@code DONE}.
 *
 * <p>Arguments: root directory, process name, number of keys.
 */
public final class MultiProcessCreateMain {
  private MultiProcessCreateMain() {}

  /** The bytes process {@code name} writes at key number {@code k}; sized to widen the race. */
  static byte[] content(String name, int k) {
    String line = "process " + name + " key " + k + "\n";
    return line.repeat(2048).getBytes(StandardCharsets.UTF_8);
  }

  static String key(int k) {
    return "shared/" + (k % 7) + "/obj-" + k;
  }

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    String name = args[1];
    int keys = Integer.parseInt(args[2]);
    ExecutorService io = Executors.newFixedThreadPool(4);
    try (FileSystemObjectStore store =
        new FileSystemObjectStore(root, io, InstantSource.system())) {
      System.out.println("READY");
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String go = in.readLine();
      if (!"GO".equals(go)) {
        throw new IllegalStateException("expected GO, got " + go);
      }
      List<CompletableFuture<Void>> futures = new ArrayList<>();
      for (int k = 0; k < keys; k++) {
        futures.add(store.create(key(k), content(name, k)));
      }
      for (int k = 0; k < keys; k++) {
        try {
          futures.get(k).join();
          System.out.println("WON " + key(k));
        } catch (CompletionException e) {
          if (!(e.getCause() instanceof ObjectExistsException)) {
            throw e;
          }
          System.out.println("LOST " + key(k));
        }
      }
      System.out.println("DONE");
      System.out.flush();
    } finally {
      io.shutdownNow();
    }
  }
}
