package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.StreamSpec;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.crypto.NamespaceKeyRing;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.meta.command.IndexEntry;
import dev.loam.testing.TestCluster;
import dev.loam.wal.object.WalObjectReader;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The opened-chunk memory of {@link SealedChunkReader}, observed by its decryptions and by the
 * chunk loads it asks its tiers for: a chunk's entries read again and again (a consumer fetching a
 * few records at a time reads its entry once per fetch) decrypt it once while it is held; reading
 * past the 16 MiB memory evicts the least recently read chunks, which decrypt again when read
 * again; and a held chunk of a namespace whose keys were just destroyed fails with {@link
 * KeyDestroyedException} naming the namespace, although its key and its plaintext are both still in
 * this reader's memory. The chunks are written by a real node into the store; the reader opens them
 * with the PKCS#12 key store through a key ring of its own.
 */
class SealedChunkMemoryTest {
  @TempDir Path dir;
  TestCluster cluster;
  Pkcs12KeyManagementService kms;
  LoamNode node;
  long streamId;
  final AtomicInteger chunkLoads = new AtomicInteger();

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    kms = new Pkcs12KeyManagementService(dir.resolve("kms.p12"), "pw".toCharArray());
    node =
        LoamNode.builder()
            .nodeId("w")
            .settings(TestCluster.FAST.withTailCacheBytes(0))
            .objectStore(cluster.memoryStore)
            .metastore(cluster.embeddedMeta)
            .keyManagement(kms)
            .start();
    cluster.adopt(node);
    node.log().createEncryptedNamespace("secret").join();
    node.log().createStream("secret", "s", StreamSpec.standard(1)).join();
    streamId = cluster.embeddedMeta.read(r -> r.stream("secret", "s")).orElseThrow().id();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
    kms.close();
  }

  /** A reader of its own over the node's store and metastore, holding {@code capacity} bytes. */
  SealedChunkReader reader(long capacity) {
    String clusterId = cluster.embeddedMeta.read(r -> r.clusterId()).orElseThrow();
    NamespaceKeyRing ring =
        new NamespaceKeyRing(
            cluster.memoryStore,
            kms,
            clusterId,
            InstantSource.system(),
            Duration.ofHours(1),
            Duration.ofSeconds(5),
            new SecureRandom());
    NamespaceEncryption encryption =
        new NamespaceEncryption(
            cluster.embeddedMeta,
            "reader",
            () -> {
              throw new IllegalStateException("the reader proposes nothing");
            },
            (rejected, subject) -> new LoamException(LoamException.Kind.INTERNAL, subject),
            ring,
            kms);
    return new SealedChunkReader(cluster.memoryStore, encryption, capacity);
  }

  /** Loads whole chunks from the store, counting them: a sealed chunk is loaded to be opened. */
  CompletableFuture<byte[]> load(String key, long offset, int length) {
    chunkLoads.incrementAndGet();
    return cluster.memoryStore.get(key, offset, length);
  }

  byte[] read(SealedChunkReader r, IndexEntry e) throws Exception {
    return r.load(e, this::load).get(10, TimeUnit.SECONDS);
  }

  List<IndexEntry> entries() {
    return cluster.embeddedMeta.read(r -> r.indexEntries(streamId, 0, 0, 10_000));
  }

  /** The chunk holding each entry, as "object#chunk", from the objects' own chunk indexes. */
  Map<IndexEntry, String> chunkOf(List<IndexEntry> entries) {
    Map<String, WalObjectReader.WalIndex> indexes = new HashMap<>();
    Map<IndexEntry, String> out = new HashMap<>();
    for (IndexEntry e : entries) {
      WalObjectReader.WalIndex ix =
          indexes.computeIfAbsent(
              e.objectKey(),
              k -> {
                byte[] b = cluster.memoryStore.get(k).join();
                return WalObjectReader.parseIndex(b, b.length);
              });
      for (int i = 0; i < ix.chunks().size(); i++) {
        var c = ix.chunks().get(i);
        if (e.byteOffset() >= c.offset()
            && e.byteOffset() + e.byteLength() <= c.offset() + c.length()) {
          assertThat(c.sealed()).as("chunk of %s", e).isTrue();
          out.put(e, e.objectKey() + "#" + i);
        }
      }
    }
    return out;
  }

  /** Appends that go out together, so one flush puts several of their batches in one chunk. */
  void appendTogether(int appends, int valueBytes) {
    Random random = new Random(7);
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    for (int i = 0; i < appends; i++) {
      byte[] v = new byte[valueBytes];
      random.nextBytes(v);
      inFlight.add(
          node.log().append("secret", "s", List.of(AppendRecord.of(null, v).toPartition(0))));
    }
    CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
  }

  /** The entries of the chunk that holds the most of them. */
  List<IndexEntry> entriesOfFullestChunk() {
    List<IndexEntry> all = entries();
    Map<IndexEntry, String> chunks = chunkOf(all);
    Map<String, List<IndexEntry>> byChunk = new HashMap<>();
    for (IndexEntry e : all) {
      byChunk.computeIfAbsent(chunks.get(e), k -> new ArrayList<>()).add(e);
    }
    return byChunk.values().stream().max((a, b) -> a.size() - b.size()).orElseThrow();
  }

  @Test
  void aHeldChunkIsOpenedOnceForAllReadsOfItsEntries() throws Exception {
    appendTogether(40, 200);
    // The flush's batches of the partition went into one sealed chunk. A consumer that fetches a
    // few records at a time reads the same entries again on every fetch, as the rounds below do.
    List<IndexEntry> one = entriesOfFullestChunk();

    SealedChunkReader r = reader(SealedChunkReader.OPENED_BYTES);
    List<byte[]> first = new ArrayList<>();
    for (IndexEntry e : one) {
      first.add(read(r, e));
    }
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < one.size(); i++) {
        assertThat(read(r, one.get(i))).isEqualTo(first.get(i));
      }
    }
    assertThat(r.chunkOpens()).as("decryptions of the chunk").isEqualTo(1);
    assertThat(chunkLoads.get()).as("loads of the chunk from the tiers").isEqualTo(1);
    assertThat(r.openedBytes()).isPositive();
  }

  @Test
  void withoutTheMemoryEveryReadOpensTheChunkAgain() throws Exception {
    appendTogether(40, 200);
    List<IndexEntry> one = entriesOfFullestChunk();
    SealedChunkReader r = reader(0);
    SealedChunkReader held = reader(SealedChunkReader.OPENED_BYTES);
    for (int round = 0; round < 3; round++) {
      for (IndexEntry e : one) {
        assertThat(read(r, e)).isEqualTo(read(held, e));
      }
    }
    assertThat(r.chunkOpens()).isEqualTo(3L * one.size());
    assertThat(r.openedBytes()).isZero();
  }

  @Test
  void chunksReadPastSixteenMibAreEvictedAndOpenedAgain() throws Exception {
    // Eight chunks of 3 MiB each (one flush each): 24 MiB of plaintext, over the 16 MiB memory,
    // and each chunk under the quarter of it that a held chunk may take.
    int valueBytes = 1 << 20;
    for (int i = 0; i < 8; i++) {
      appendTogether(3, valueBytes);
    }
    List<IndexEntry> all = entries();
    Map<IndexEntry, String> chunks = chunkOf(all);
    Map<String, IndexEntry> firstOfChunk = new java.util.LinkedHashMap<>();
    for (IndexEntry e : all) {
      firstOfChunk.putIfAbsent(chunks.get(e), e);
    }
    List<IndexEntry> perChunk = new ArrayList<>(firstOfChunk.values());
    assertThat(perChunk).as("sealed chunks").hasSizeGreaterThanOrEqualTo(6);

    SealedChunkReader r = reader(SealedChunkReader.OPENED_BYTES);
    long total = 0;
    for (IndexEntry e : perChunk) {
      read(r, e);
      total += chunkBytes(e);
    }
    assertThat(total).isGreaterThan(SealedChunkReader.OPENED_BYTES);
    assertThat(r.chunkOpens()).isEqualTo(perChunk.size());
    assertThat(r.openedBytes())
        .as("held plaintext stays within the memory")
        .isLessThanOrEqualTo(SealedChunkReader.OPENED_BYTES)
        .isPositive();

    // The most recently read chunk is still held; the first ones were pushed out and open again.
    IndexEntry last = perChunk.get(perChunk.size() - 1);
    read(r, last);
    assertThat(r.chunkOpens()).as("the last chunk read is held").isEqualTo(perChunk.size());
    read(r, perChunk.get(0));
    assertThat(r.chunkOpens())
        .as("the first chunk read was evicted")
        .isEqualTo(perChunk.size() + 1);
    read(r, perChunk.get(0));
    assertThat(r.chunkOpens()).as("and is held again").isEqualTo(perChunk.size() + 1);
  }

  private long chunkBytes(IndexEntry e) {
    byte[] b = cluster.memoryStore.get(e.objectKey()).join();
    WalObjectReader.WalIndex ix = WalObjectReader.parseIndex(b, b.length);
    return ix.chunks().stream()
        .filter(c -> e.byteOffset() >= c.offset() && e.byteOffset() < c.offset() + c.length())
        .findFirst()
        .orElseThrow()
        .length();
  }

  @Test
  void aHeldChunkFailsNamingTheNamespaceRightAfterItsKeysAreDestroyed() throws Exception {
    appendTogether(20, 200);
    List<IndexEntry> one = entriesOfFullestChunk();
    SealedChunkReader r = reader(SealedChunkReader.OPENED_BYTES);
    read(r, one.get(0));
    assertThat(r.chunkOpens()).isEqualTo(1);
    int loads = chunkLoads.get();

    node.log().destroyNamespaceKeys("secret").join();

    for (IndexEntry e : one) {
      assertThatThrownBy(() -> read(r, e))
          .satisfies(
              t -> {
                Throwable c = t.getCause();
                while (c instanceof CompletionException && c.getCause() != null) {
                  c = c.getCause();
                }
                assertThat(c).isInstanceOf(KeyDestroyedException.class);
                assertThat(((KeyDestroyedException) c).namespace()).isEqualTo("secret");
                assertThat(c).hasMessageContaining("namespace=secret");
              });
    }
    // Refused from the held plaintext: nothing was loaded or decrypted again.
    assertThat(r.openedBytes()).isPositive();
    assertThat(r.chunkOpens()).isEqualTo(1);
    assertThat(chunkLoads.get()).isEqualTo(loads);
  }
}
