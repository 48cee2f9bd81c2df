package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.TailRead;
import java.util.Arrays;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Multipart uploads against S3Proxy: parts uploaded in parallel, a create whose
 * CompleteMultipartUpload carries {@code If-None-Match: *}, and no upload left behind. Runs on
 * S3Proxy only: S3Mock's AbortMultipartUpload deletes an existing object of the same key (its
 * documented deviation), which is exactly what the losing create does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class S3MultipartIT {
  private static final int MIB = 1024 * 1024;
  private static Emulator server;
  private static ExecutorService completions;

  @BeforeAll
  static void start() throws Exception {
    server = Emulator.s3proxy();
    completions = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    completions.shutdownNow();
  }

  static byte[] pattern(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + (i >>> 8) + seed);
    }
    return b;
  }

  @Test
  void aMultipartCreateIsExclusiveAndLeavesNoUploadBehind() {
    String bucket = server.newBucket();
    S3StoreSettings settings =
        server.settings(bucket).withPrefix("mpu/").withMultipart(5 * MIB, 5 * MIB, 3);
    try (S3ObjectStore store = new S3ObjectStore(settings, completions)) {
      byte[] first = pattern(16 * MIB + 3, 1); // 4 parts, the last one 3 bytes
      store.create("seg/1", first).join();
      assertThat(store.get("seg/1").join()).isEqualTo(first);
      // Across the boundary of parts 1 and 2.
      assertThat(store.get("seg/1", 5 * MIB - 10, 20).join())
          .isEqualTo(Arrays.copyOfRange(first, 5 * MIB - 10, 5 * MIB + 10));
      TailRead tail = store.getTail("seg/1", 100).join();
      assertThat(tail.objectSize()).isEqualTo(first.length);

      byte[] second = pattern(11 * MIB, 2);
      Throwable lost = store.create("seg/1", second).handle((v, e) -> e).join();
      assertThat(lost).isInstanceOf(CompletionException.class);
      assertThat(lost.getCause()).isInstanceOf(ObjectExistsException.class);
      assertThat(store.get("seg/1").join()).isEqualTo(first);

      store.put("seg/1", second).join();
      assertThat(store.get("seg/1").join()).isEqualTo(second);
    }
    // Every upload was completed or aborted: none is left to cost money.
    assertThat(server.admin().listMultipartUploads(b -> b.bucket(bucket)).join().uploads())
        .isEmpty();
  }

  /**
   * Every part-checksum setting, with request checksums when supported and when required, writes a
   * multipart object that reads back intact: the per-part checksum fields CompleteMultipartUpload
   * lists match the algorithm the upload named (S3 refuses the complete otherwise), and with none
   * the upload names no algorithm.
   */
  @ParameterizedTest
  @EnumSource(S3Checksums.PartChecksum.class)
  void everyPartChecksumSettingWritesAMultipartObject(S3Checksums.PartChecksum part) {
    String bucket = server.newBucket();
    for (S3Checksums.When request : S3Checksums.When.values()) {
      S3Checksums checksums =
          S3Checksums.DEFAULTS
              .withPartChecksum(part)
              .withRequestCalculation(request)
              .withResponseValidation(request);
      S3StoreSettings settings =
          server
              .settings(bucket)
              .withPrefix("mpu-" + request.uriValue() + "/")
              .withMultipart(5 * MIB, 5 * MIB, 2)
              .withChecksums(checksums);
      try (S3ObjectStore store = new S3ObjectStore(settings, completions)) {
        byte[] data = pattern(10 * MIB + 17, part.ordinal());
        store.create("seg/" + part.uriValue(), data).join();
        assertThat(store.get("seg/" + part.uriValue()).join()).as("%s", checksums).isEqualTo(data);
      }
    }
    assertThat(server.admin().listMultipartUploads(b -> b.bucket(bucket)).join().uploads())
        .isEmpty();
  }
}
