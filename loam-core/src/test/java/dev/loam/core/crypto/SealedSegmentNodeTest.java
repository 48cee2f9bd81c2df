package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.CompactionSettings;
import dev.loam.api.Durability;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.core.ObjectLayout;
import dev.loam.error.KeyDestroyedException;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.testing.Eventually;
import dev.loam.testing.TestCluster;
import dev.loam.wal.segment.SegmentReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sealed segments on a running node (docs/formats/segment-v2.md): the segmenter and the compactor
 * rewrite an encrypted namespace's entries into segments sealed under its key while a plain
 * namespace's segments stay version 1; no segment and no disk cache file holds the encrypted
 * records' plaintext; fetch reads both back through the segments' blocks; after a destroy the
 * encrypted namespace's reads fail with {@link KeyDestroyedException} naming it and the plain
 * namespace reads back completely.
 */
class SealedSegmentNodeTest {
  static final String SECRET_MARK = "top-secret-value-";
  static final String PLAIN_MARK = "open-value-";

  @TempDir Path dir;
  TestCluster cluster;
  ControlledKms kms;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    kms =
        new ControlledKms(
            new Pkcs12KeyManagementService(dir.resolve("kms.p12"), "pw".toCharArray()));
  }

  @AfterEach
  void tearDown() throws Exception {
    cluster.close();
    kms.close();
  }

  LoamNode start() {
    NodeSettings settings =
        TestCluster.FAST
            .withTailCacheBytes(0)
            .withDiskCache(dir.resolve("cache"), 8 << 20)
            .toBuilder()
            .maintenanceInterval(Duration.ofMillis(50))
            .segmentThresholdBytes(500L)
            .segmentMaxBytes(2500L)
            .segmentEntryMaxBytes(1 << 20)
            .build();
    LoamNode n =
        LoamNode.builder()
            .nodeId("n1")
            .settings(settings)
            .objectStore(cluster.memoryStore)
            .metastore(cluster.embeddedMeta)
            .keyManagement(kms)
            .kmsTimeout(Duration.ofSeconds(5))
            .compaction(CompactionSettings.defaults().withTombstoneRetention(Duration.ZERO))
            .start();
    cluster.adopt(n);
    return n;
  }

  static List<String> values(Log log, String ns, String stream) {
    List<String> out = new ArrayList<>();
    long offset = 0;
    while (true) {
      List<FetchedRecord> rs =
          log.fetch(ns, stream, 0, offset, 4096, Duration.ZERO).join().records();
      if (rs.isEmpty()) {
        return out;
      }
      for (FetchedRecord r : rs) {
        out.add(r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8));
        offset = r.offset() + 1;
      }
    }
  }

  static List<String> expected(String mark, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(mark + i);
    }
    return out;
  }

  /** Segment keys by whether the segment is sealed. */
  Map<Boolean, List<String>> segments() {
    Map<Boolean, List<String>> out = new HashMap<>();
    out.put(true, new ArrayList<>());
    out.put(false, new ArrayList<>());
    for (ObjectInfo o : cluster.memoryStore.list("seg/", "", 1000).join().objects()) {
      if (ObjectLayout.isSegment(o.key())) {
        byte[] b = cluster.memoryStore.get(o.key()).join();
        out.get(SegmentReader.parseFooter(b, b.length).sealed()).add(o.key());
      }
    }
    return out;
  }

  static Throwable cause(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @Test
  void encryptedNamespacesAreSegmentedAndCompactedSealedAndShreddedWithTheirKey() throws Exception {
    LoamNode n = start();
    Log log = n.log();
    log.createNamespace("plain").join();
    log.createEncryptedNamespace("secret").join();
    log.createStream("plain", "s", StreamSpec.standard(1)).join();
    log.createStream("secret", "s", StreamSpec.standard(1)).join();
    log.createStream("secret", "c", new StreamSpec(1, Durability.STANDARD, -1, -1, true)).join();
    int n1 = 60;
    for (int i = 0; i < n1; i++) {
      log.append("plain", "s", List.of(AppendRecord.of("k" + i, PLAIN_MARK + i).toPartition(0)))
          .join();
      log.append("secret", "s", List.of(AppendRecord.of("k" + i, SECRET_MARK + i).toPartition(0)))
          .join();
      log.append(
              "secret",
              "c",
              List.of(AppendRecord.of("k" + (i % 5), SECRET_MARK + "c" + i).toPartition(0)))
          .join();
    }
    Eventually.await(
        () -> {
          Map<Boolean, List<String>> s = segments();
          return !s.get(false).isEmpty()
              && s.get(true).stream().anyMatch(k -> k.endsWith(".seg"))
              && s.get(true).stream().anyMatch(k -> k.endsWith(".cseg"));
        },
        "plain and sealed segments, and a sealed compacted segment");

    Map<Boolean, List<String>> segs = segments();
    for (String key : segs.get(true)) {
      byte[] b = cluster.memoryStore.get(key).join();
      assertThat(new String(b, StandardCharsets.ISO_8859_1)).as(key).doesNotContain(SECRET_MARK);
      assertThat(SegmentReader.parseTail(b, b.length).seal().keyId()).startsWith("secret/");
    }
    for (String key : segs.get(false)) {
      // A plain segment is version 1, fully readable without any key.
      SegmentReader.parse(cluster.memoryStore.get(key).join());
    }

    assertThat(values(log, "plain", "s")).isEqualTo(expected(PLAIN_MARK, n1));
    assertThat(values(log, "secret", "s")).isEqualTo(expected(SECRET_MARK, n1));
    Eventually.await(
        () -> values(log, "secret", "c").size() < n1, "the encrypted compacted stream compacted");
    List<String> compacted = values(log, "secret", "c");
    for (int k = 0; k < 5; k++) {
      assertThat(compacted).contains(SECRET_MARK + "c" + (n1 - 5 + k));
    }
    assertThat(compacted).doesNotContain(SECRET_MARK + "c0");

    // The disk cache holds sealed bytes only.
    Eventually.await(() -> n.readStats().diskWrites() > 0, "the disk cache is written");
    DiskCacheFiles.assertNoneContains(dir.resolve("cache"), SECRET_MARK);

    log.destroyNamespaceKeys("secret").join();
    for (String stream : List.of("s", "c")) {
      assertThatThrownBy(() -> log.fetch("secret", stream, 0, 0, 4096, Duration.ZERO).join())
          .satisfies(
              t -> {
                assertThat(cause(t)).isInstanceOf(KeyDestroyedException.class);
                assertThat(((KeyDestroyedException) cause(t)).namespace()).isEqualTo("secret");
              });
    }
    assertThat(values(log, "plain", "s")).isEqualTo(expected(PLAIN_MARK, n1));
  }
}
