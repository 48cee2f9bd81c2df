package dev.loam.storage.gcs;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.loam.spi.store.StoreContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@link GcsTestServer} and one bounded I/O pool shared by every test class of this JVM: the
 * server is in-process, so it dies with the JVM and leaves nothing behind.
 */
final class TestServers {
  private static GcsTestServer server;
  private static ExecutorService io;
  private static final AtomicInteger BUCKETS = new AtomicInteger();

  private TestServers() {}

  static synchronized GcsTestServer server() {
    if (server == null) {
      try {
        server = GcsTestServer.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      io =
          Executors.newFixedThreadPool(
              32,
              r -> {
                Thread t = new Thread(r, "gcs-store-io");
                t.setDaemon(true);
                return t;
              });
      Runtime.getRuntime().addShutdownHook(new Thread(() -> server.close()));
    }
    return server;
  }

  static synchronized ExecutorService io() {
    server();
    return io;
  }

  static StoreContext context() {
    return new StoreContext(InstantSource.system(), io(), Map.of());
  }

  /** A fresh, empty bucket on the shared server. */
  static String freshBucket() {
    String name = "loam-test-" + BUCKETS.incrementAndGet();
    server().createBucket(name);
    return name;
  }

  /** Settings for a bucket of the shared server, with short timeouts for tests. */
  static GcsStoreSettings settings(String bucket, String prefix) {
    return GcsStoreSettings.defaults(bucket, prefix)
        .withHost(server().endpoint())
        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(20), 3, Duration.ofSeconds(30));
  }

  /** A raw client on the shared server, for checks below the store. */
  static Storage rawClient() {
    return StorageOptions.http()
        .setHost(server().endpoint())
        .setProjectId("test")
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
  }
}
