package dev.loam.journal.ratis;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Three (or n) journal servers in one JVM over real loopback sockets, each hosting the journal
 * {@link #JOURNAL}; servers can be stopped (as a crash: no snapshot, no clean hand-over) and
 * restarted from their directories. Waits with futures and deadlines, never sleeps.
 */
final class JournalTestCluster implements AutoCloseable {
  static final String JOURNAL = "j1";
  static final long TIMEOUT_SECONDS = 30;

  private final Path baseDir;
  private final UnaryOperator<JournalSettings> tweak;
  final Map<String, String> addresses = new LinkedHashMap<>();
  private final Map<String, JournalServer> servers = new LinkedHashMap<>();
  final ExecutorService executor = Executors.newFixedThreadPool(4);

  JournalTestCluster(Path baseDir, int n, UnaryOperator<JournalSettings> tweak) {
    this.baseDir = baseDir;
    this.tweak = tweak;
    for (int i = 1; i <= n; i++) {
      addresses.put("n" + i, "127.0.0.1:" + freePort());
    }
    for (String id : addresses.keySet()) {
      start(id).host(new JournalGroup(JOURNAL, addresses));
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  JournalSettings settings(String id) {
    return tweak.apply(JournalSettings.defaults(id, addresses.get(id), baseDir.resolve(id)));
  }

  /** Starts (or restarts from its directory) one server. */
  JournalServer start(String id) {
    JournalServer s = JournalServer.start(settings(id), executor);
    servers.put(id, s);
    return s;
  }

  /** Stops one server at once (its directory stays). */
  void stop(String id) {
    JournalServer s = servers.remove(id);
    if (s != null) {
      s.close();
    }
  }

  JournalServer server(String id) {
    return servers.get(id);
  }

  List<String> running() {
    return new ArrayList<>(servers.keySet());
  }

  /** The id of the running server that leads the journal, waiting up to the timeout for one. */
  String awaitLeader() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (System.nanoTime() < deadline) {
      for (Map.Entry<String, JournalServer> e : servers.entrySet()) {
        if (e.getValue().isLeader(JOURNAL)) {
          return e.getKey();
        }
      }
      // A leader takes an election timeout to appear: wait for one on a monitor, not a sleep.
      synchronized (this) {
        try {
          wait(20);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new AssertionError(ie);
        }
      }
    }
    throw new AssertionError("no journal leader among " + servers.keySet());
  }

  /** Proposes through {@code id} and waits for the result. */
  JournalResult propose(String id, JournalEntry e) {
    return get(servers.get(id).propose(JOURNAL, e));
  }

  /**
   * Waits until server {@code id} has applied the partition up to {@code highWatermark}, woken by
   * its apply listener.
   */
  void awaitHighWatermark(String id, long stream, int partition, long highWatermark) {
    JournalServer s = servers.get(id);
    CompletableFuture<Void> reached = new CompletableFuture<>();
    AutoCloseable registration =
        s.onApplied(
            JOURNAL,
            new JournalListener() {
              @Override
              public void applied(JournalEntry entry, JournalResult result) {
                if (entry.streamId() == stream
                    && entry.partition() == partition
                    && result instanceof JournalResult.Appended a
                    && a.lastOffset() + 1 >= highWatermark) {
                  reached.complete(null);
                }
              }

              @Override
              public void reloaded() {
                // A snapshot installed from the leader: its entries come without apply calls.
                if (s.highWatermark(JOURNAL, stream, partition).orElse(-1) >= highWatermark) {
                  reached.complete(null);
                }
              }
            });
    try (AutoCloseable r = registration) {
      if (s.highWatermark(JOURNAL, stream, partition).orElse(-1) >= highWatermark) {
        return;
      }
      get(reached);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static <T> T get(CompletableFuture<T> f) {
    try {
      return f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("timed out or failed", e);
    }
  }

  @Override
  public void close() {
    List<Thread> threads = new ArrayList<>();
    for (JournalServer s : servers.values()) {
      Thread t = new Thread(s::close, "close-" + s.nodeId());
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    servers.clear();
    executor.shutdownNow();
  }
}
