package dev.loam.examples.radosgw;

import dev.loam.spi.store.ObjectStore;
import dev.loam.storage.s3.S3ObjectStore;
import dev.loam.storage.s3.S3StoreSettings;
import dev.loam.store.tck.ObjectStoreContractTest;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit against Ceph radosgw (Debian's Ceph 16, installed and started by {@link
 * Radosgw}), through the S3 store with only required checksums ({@code request-checksum}, {@code
 * response-checksum} {@code =when-required}, {@code part-checksum=none}). Each case gets a fresh
 * bucket; the second handle is a second client on it. The kit's objects stay below the multipart
 * threshold, so creates are single conditional PUTs (radosgw does not enforce {@code If-None-Match}
 * on CompleteMultipartUpload; see storage-s3.md).
 */
class RadosgwObjectStoreContractIT extends ObjectStoreContractTest {
  private static Radosgw rgw;
  private static ExecutorService completions;
  private S3StoreSettings current;

  @BeforeAll
  static void start() throws Exception {
    rgw = Radosgw.shared();
    completions = Executors.newFixedThreadPool(8);
  }

  @AfterAll
  static void stopExecutor() {
    completions.shutdownNow();
  }

  @Override
  protected ObjectStore newStore() {
    current = rgw.settings(rgw.newBucket());
    return new S3ObjectStore(current, completions);
  }

  @Override
  protected ObjectStore openAnotherHandle() {
    return new S3ObjectStore(current, completions);
  }

  @Override
  protected Duration timeout() {
    return Duration.ofSeconds(60);
  }
}
