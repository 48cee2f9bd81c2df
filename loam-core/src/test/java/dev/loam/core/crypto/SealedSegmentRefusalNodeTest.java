package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.core.ObjectLayout;
import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.meta.command.IndexEntry;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.testing.Eventually;
import dev.loam.testing.TestCluster;
import dev.loam.wal.segment.SegmentBatch;
import dev.loam.wal.segment.SegmentReader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sealed segment's own refusals, on a running node, with the segment the only copy of its
 * records: every entry of both namespaces is segmented (threshold 1 byte) and GC has deleted every
 * WAL object (no grace period), so no read can be answered from a WAL chunk, and the node has
 * neither a tail cache nor a disk cache. Two refusals come from the segment read path itself, not
 * from the metastore's record of a destroy (which fails reads before any tier is asked):
 *
 * <ul>
 *   <li>the namespace's master key destroyed in the KMS behind Loam's back (no destroy recorded): a
 *       node that does not hold the key in memory resolves the segment's key id, the KMS refuses
 *       the unwrap, and the fetch fails with {@link KeyDestroyedException} naming the namespace;
 *   <li>a sealed segment rewritten in the store with one ciphertext byte changed and its CRCs
 *       recomputed (what someone with bucket access could do): only AES-GCM can tell, and the fetch
 *       fails with {@link CorruptionException} naming the batch, the key id and the object.
 * </ul>
 *
 * In both cases the plain namespace reads back completely.
 */
class SealedSegmentRefusalNodeTest {
  @TempDir Path dir;
  TestCluster cluster;
  Pkcs12KeyManagementService kms;
  long secretStream;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    kms = new Pkcs12KeyManagementService(dir.resolve("kms.p12"), "pw".toCharArray());
  }

  @AfterEach
  void tearDown() {
    cluster.close();
    kms.close();
  }

  LoamNode start(String id) {
    NodeSettings settings =
        TestCluster.FAST.withTailCacheBytes(0).toBuilder()
            .maintenanceInterval(Duration.ofMillis(50))
            .segmentThresholdBytes(1L)
            .segmentMaxBytes(4000L)
            .segmentEntryMaxBytes(1 << 20)
            .gcGracePeriod(Duration.ZERO)
            .walReadAheadBytes(0)
            .build();
    LoamNode n =
        LoamNode.builder()
            .nodeId(id)
            .settings(settings)
            .objectStore(cluster.memoryStore)
            .metastore(cluster.embeddedMeta)
            .keyManagement(kms)
            .kmsTimeout(Duration.ofSeconds(5))
            .start();
    cluster.adopt(n);
    return n;
  }

  List<IndexEntry> entries(String ns) {
    long id = cluster.embeddedMeta.read(r -> r.stream(ns, "s")).orElseThrow().id();
    return cluster.embeddedMeta.read(r -> r.indexEntries(id, 0, 0, 10_000));
  }

  List<String> storeKeys() {
    List<String> out = new ArrayList<>();
    String after = "";
    while (true) {
      ListPage page = cluster.memoryStore.list("", after, 1000).join();
      for (ObjectInfo o : page.objects()) {
        out.add(o.key());
      }
      if (page.nextStartAfter().isEmpty()) {
        return out;
      }
      after = page.nextStartAfter().get();
    }
  }

  /** Writes both namespaces and waits until their records are in segments only. */
  Log writeAndSegment(LoamNode n, int records) {
    Log log = n.log();
    log.createNamespace("plain").join();
    log.createEncryptedNamespace("secret").join();
    log.createStream("plain", "s", StreamSpec.standard(1)).join();
    log.createStream("secret", "s", StreamSpec.standard(1)).join();
    secretStream = cluster.embeddedMeta.read(r -> r.stream("secret", "s")).orElseThrow().id();
    for (int i = 0; i < records; i++) {
      log.append(
              "plain",
              "s",
              List.of(
                  AppendRecord.of("k" + i, SealedSegmentNodeTest.PLAIN_MARK + i).toPartition(0)))
          .join();
      log.append(
              "secret",
              "s",
              List.of(
                  AppendRecord.of("k" + i, SealedSegmentNodeTest.SECRET_MARK + i).toPartition(0)))
          .join();
    }
    Eventually.await(
        () ->
            entries("plain").stream().allMatch(e -> ObjectLayout.isSegment(e.objectKey()))
                && entries("secret").stream().allMatch(e -> ObjectLayout.isSegment(e.objectKey()))
                && storeKeys().stream().noneMatch(ObjectLayout::isWal),
        "every entry in a segment and every WAL object deleted");
    assertThat(entries("secret")).isNotEmpty();
    assertThat(SealedSegmentNodeTest.values(log, "secret", "s"))
        .isEqualTo(SealedSegmentNodeTest.expected(SealedSegmentNodeTest.SECRET_MARK, records));
    return log;
  }

  /** The sealed segments of the encrypted namespace's stream. */
  List<String> sealedSegments() {
    List<String> out = new ArrayList<>();
    for (String key : storeKeys()) {
      if (ObjectLayout.isSegment(key) && key.contains("/" + secretStream + "/")) {
        byte[] b = cluster.memoryStore.get(key).join();
        if (SegmentReader.parseFooter(b, b.length).sealed()) {
          out.add(key);
        }
      }
    }
    return out;
  }

  @Test
  void aMasterKeyDestroyedInTheKmsFailsTheSegmentReadNamingTheNamespace() {
    int records = 40;
    LoamNode writer = start("n1");
    writeAndSegment(writer, records);
    assertThat(sealedSegments()).isNotEmpty();
    // The node that sealed the segments holds the key in memory; the reader is a node started
    // after the destroy, which must ask the KMS.
    writer.close();
    kms.destroy("secret").join();
    assertThat(cluster.embeddedMeta.read(r -> r.namespaceKeys("secret")).orElseThrow().destroyed())
        .as("no destroy recorded in the metastore")
        .isFalse();

    Log reader = start("n2").log();
    assertThatThrownBy(() -> reader.fetch("secret", "s", 0, 0, 4096, Duration.ZERO).join())
        .satisfies(
            t -> {
              Throwable c = SealedSegmentNodeTest.cause(t);
              assertThat(c).isInstanceOf(KeyDestroyedException.class);
              assertThat(((KeyDestroyedException) c).namespace()).isEqualTo("secret");
              assertThat(c).hasMessageContaining("namespace=secret");
            });
    assertThat(SealedSegmentNodeTest.values(reader, "plain", "s"))
        .isEqualTo(SealedSegmentNodeTest.expected(SealedSegmentNodeTest.PLAIN_MARK, records));
  }

  @Test
  void aTamperedSealedSegmentWithValidCrcsFailsNamingTheObject() {
    int records = 40;
    LoamNode n = start("n1");
    Log log = writeAndSegment(n, records);
    List<String> sealed = sealedSegments();
    assertThat(sealed).isNotEmpty();
    String victim = sealed.get(0);
    byte[] b = cluster.memoryStore.get(victim).join();
    List<SegmentBatch> batches = SegmentReader.parseIndex(b, b.length);
    SegmentBatch first = batches.get(0);

    // One ciphertext byte of the first batch changed, then the data and footer CRCs recomputed.
    byte[] tampered = b.clone();
    tampered[(int) first.position() + 20] ^= 0x01;
    ByteBuffer footer = ByteBuffer.wrap(tampered, tampered.length - 32, 32).slice();
    long indexOffset = footer.getLong(0);
    CRC32C data = new CRC32C();
    data.update(tampered, SegmentReader.HEADER_SIZE, (int) indexOffset - SegmentReader.HEADER_SIZE);
    footer.putInt(16, (int) data.getValue());
    CRC32C foot = new CRC32C();
    foot.update(tampered, tampered.length - 32, 24);
    footer.putInt(24, (int) foot.getValue());
    // The CRCs accept the rewritten object: a full parse gets past every CRC and asks for the key.
    assertThatThrownBy(
            () ->
                SegmentReader.parse(
                    tampered,
                    victim,
                    id -> {
                      throw new LoamException(LoamException.Kind.UNAVAILABLE, "asked for " + id);
                    }))
        .isExactlyInstanceOf(LoamException.class)
        .hasMessageContaining("asked for secret/");
    cluster.memoryStore.put(victim, tampered).join();

    assertThatThrownBy(
            () -> log.fetch("secret", "s", 0, first.baseOffset(), 4096, Duration.ZERO).join())
        .satisfies(
            t -> {
              Throwable c = SealedSegmentNodeTest.cause(t);
              assertThat(c).isInstanceOf(CorruptionException.class);
              assertThat(c)
                  .hasMessageContaining("segment sealed batch authentication failed")
                  .hasMessageContaining("batch=0")
                  .hasMessageContaining("keyId=secret/")
                  .hasMessageContaining("objectKey=" + victim);
            });
    assertThat(SealedSegmentNodeTest.values(log, "plain", "s"))
        .isEqualTo(SealedSegmentNodeTest.expected(SealedSegmentNodeTest.PLAIN_MARK, records));
  }
}
