package dev.loam.examples.radosgw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.examples.Demo;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.storage.s3.S3Checksums;
import dev.loam.storage.s3.S3ObjectStore;
import dev.loam.storage.s3.S3StoreSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam demo} against Ceph radosgw with the checksum options, and the two radosgw findings
 * the options exist for: the SDK's default request checksums and a checksum on each multipart part
 * are refused with XAmzContentSHA256Mismatch; with the options both single and multipart writes
 * work. Also pins radosgw's one deviation from the contract that Loam's key layout tolerates.
 */
class RadosgwDemoIT {
  private static final int MIB = 1024 * 1024;
  private static Radosgw rgw;
  private static ExecutorService completions;

  @BeforeAll
  static void start() throws Exception {
    rgw = Radosgw.shared();
    completions = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    completions.shutdownNow();
  }

  @Test
  void theDemoAppendsAndReadsBackEveryRecordOnRadosgw(@TempDir Path dir) throws Exception {
    String uri = rgw.uri(rgw.newBucket(), "demo");
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = System.out;
    int exit;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      exit =
          Demo.run(
              new String[] {
                "--data-dir",
                dir.resolve("demo").toString(),
                "--store",
                uri,
                "--records",
                "20000",
                "--flush-ms",
                "50"
              });
    } finally {
      System.setOut(out);
    }
    String printed = captured.toString(StandardCharsets.UTF_8);
    System.out.print(printed);
    assertThat(exit).as(printed).isZero();
    assertThat(printed)
        .contains("appended 20000 records")
        .contains("OK: every record read back in order with its content")
        .doesNotContain(Radosgw.SECRET_KEY);
    // The WAL objects are in the bucket, under the URI's prefix.
    String bucket = uri.substring("s3://".length(), uri.indexOf('/', "s3://".length()));
    assertThat(rgw.admin().listObjectsV2(b -> b.bucket(bucket).prefix("demo/")).join().keyCount())
        .isPositive();
  }

  @Test
  void theSdksDefaultChecksumsAreRefusedAndTheOptionsFixThem() {
    String bucket = rgw.newBucket();
    S3StoreSettings defaults = rgw.settings(bucket).withChecksums(S3Checksums.DEFAULTS);
    try (S3ObjectStore store = new S3ObjectStore(defaults.withRetries(1), completions)) {
      Throwable refused = failure(store.put("k", new byte[] {1, 2, 3}));
      assertThat(refused)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("XAmzContentSHA256Mismatch");
    }
    try (S3ObjectStore store = new S3ObjectStore(rgw.settings(bucket), completions)) {
      store.put("k", new byte[] {1, 2, 3}).join();
      assertThat(store.get("k").join()).containsExactly(1, 2, 3);
    }
  }

  @Test
  void multipartWritesNeedPartChecksumNoneAndAMultipartCreateIsNotExclusive() {
    String bucket = rgw.newBucket();
    byte[] big = pattern(12 * MIB + 5);
    S3StoreSettings withPartCrc =
        rgw.settings(bucket)
            .withMultipart(5 * MIB, 5 * MIB, 2)
            .withChecksums(
                S3Checksums.WHEN_REQUIRED.withPartChecksum(S3Checksums.PartChecksum.CRC32))
            .withRetries(1);
    try (S3ObjectStore store = new S3ObjectStore(withPartCrc, completions)) {
      Throwable refused = failure(store.put("seg/crc", big));
      assertThat(refused)
          .as("a part checksum on radosgw")
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("XAmzContentSHA256Mismatch");
      assertThat(store.head("seg/crc").join()).isEmpty();
    }
    S3StoreSettings none = rgw.settings(bucket).withMultipart(5 * MIB, 5 * MIB, 2);
    try (S3ObjectStore store = new S3ObjectStore(none, completions)) {
      store.create("seg/none", big).join();
      assertThat(store.get("seg/none").join()).isEqualTo(big);
      assertThat(store.get("seg/none", 5 * MIB - 3, 6).join())
          .isEqualTo(Arrays.copyOfRange(big, 5 * MIB - 3, 5 * MIB + 3));
      // Documented radosgw deviation: CompleteMultipartUpload ignores If-None-Match, so a second
      // multipart create of a key overwrites it. Loam's multipart objects (segments) have keys
      // unique per attempt, so no two writers ever race for one.
      store.create("seg/none", pattern(7 * MIB)).join();
      assertThat(store.head("seg/none").join().orElseThrow().size()).isEqualTo(7 * MIB);
      // A single-PUT create is exclusive (the kit's create cases).
      store.create("small", new byte[] {1}).join();
      assertThat(failure(store.create("small", new byte[] {2})))
          .isInstanceOf(ObjectExistsException.class);
      store.put("seg/none", pattern(6 * MIB)).join();
      assertThat(store.head("seg/none").join().orElseThrow().size()).isEqualTo(6 * MIB);
    }
  }

  /** The failure of {@code f}, unwrapped; fails the test if {@code f} succeeds. */
  private static Throwable failure(CompletableFuture<?> f) {
    Throwable t = f.handle((v, e) -> e).join();
    assertThat(t).as("expected a failure").isNotNull();
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  private static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + (i >>> 8));
    }
    return b;
  }
}
