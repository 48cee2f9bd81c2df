package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NamespaceKeyInfo;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.core.ObjectLayout;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.testing.TestCluster;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Envelope encryption on running nodes (docs/security.md, "Data at rest"): a namespace given a key
 * has its appends sealed per WAL chunk, in the same objects as plain namespaces' chunks; every read
 * tier (WAL GET, disk cache, tail cache) returns its records; no stored byte holds its plaintext;
 * rotation keeps old data readable; a slow KMS fails only that namespace's appends; and after a
 * destroy every read and append of the namespace fails with {@link KeyDestroyedException} naming it
 * while the plain namespace reads back completely.
 */
class EncryptedNamespaceNodeTest {
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

  LoamNode start(String id, NodeSettings settings, Duration kmsTimeout) {
    LoamNode n =
        LoamNode.builder()
            .nodeId(id)
            .settings(settings)
            .objectStore(cluster.memoryStore)
            .metastore(cluster.embeddedMeta)
            .keyManagement(kms)
            .kmsTimeout(kmsTimeout)
            .start();
    cluster.adopt(n);
    return n;
  }

  static NodeSettings noTail() {
    return TestCluster.FAST.withTailCacheBytes(0);
  }

  static void setUpStreams(Log log) {
    log.createNamespace("plain").join();
    NamespaceKeyInfo k = log.createEncryptedNamespace("secret").join();
    assertThat(k.keyIds()).hasSize(1);
    assertThat(k.currentKeyId()).startsWith("secret/");
    log.createStream("plain", "s", StreamSpec.standard(2)).join();
    log.createStream("secret", "s", StreamSpec.standard(2)).join();
  }

  /** Appends n records to each namespace, both in flight together so they share WAL objects. */
  static void appendBoth(Log log, int from, int n) {
    List<CompletableFuture<?>> fs = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      fs.add(log.append("plain", "s", List.of(AppendRecord.of("k" + i, PLAIN_MARK + i))));
      fs.add(log.append("secret", "s", List.of(AppendRecord.of("k" + i, SECRET_MARK + i))));
    }
    CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
  }

  static List<String> values(Log log, String ns) {
    List<String> out = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      for (FetchedRecord r : log.fetch(ns, "s", p, 0, 16 << 20, Duration.ZERO).join().records()) {
        out.add(new String(r.value(), StandardCharsets.UTF_8));
      }
    }
    out.sort(null);
    return out;
  }

  static List<String> expected(String mark, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(mark + i);
    }
    out.sort(null);
    return out;
  }

  List<String> walKeys() {
    List<String> keys = new ArrayList<>();
    for (ObjectInfo o : cluster.memoryStore.list("", "", 1000).join().objects()) {
      if (ObjectLayout.isWal(o.key())) {
        keys.add(o.key());
      }
    }
    return keys;
  }

  static Throwable cause(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @Test
  void sealedAndPlainChunksShareObjectsAndReadBackThroughTheWalAndTheDiskCache() throws Exception {
    NodeSettings settings = noTail().withDiskCache(dir.resolve("cache"), 8 << 20);
    LoamNode n = start("n1", settings, Duration.ofSeconds(5));
    setUpStreams(n.log());
    appendBoth(n.log(), 0, 20);

    int sealed = 0;
    int plain = 0;
    int mixed = 0;
    for (String key : walKeys()) {
      byte[] bytes = cluster.memoryStore.get(key).join();
      assertThat(new String(bytes, StandardCharsets.ISO_8859_1)).doesNotContain(SECRET_MARK);
      WalObject o = WalObjectReader.parse(bytes);
      boolean anySealed = false;
      boolean anyPlain = false;
      for (ChunkIndexEntry e : o.chunks()) {
        anySealed |= e.sealed();
        anyPlain |= !e.sealed();
      }
      sealed += anySealed ? 1 : 0;
      plain += anyPlain ? 1 : 0;
      mixed += anySealed && anyPlain ? 1 : 0;
    }
    assertThat(sealed).isPositive();
    assertThat(mixed).as("objects holding chunks of both namespaces").isPositive();

    // No tail cache: the first reads GET the objects (whole sealed chunks) and fill the disk cache.
    assertThat(values(n.log(), "secret")).isEqualTo(expected(SECRET_MARK, 20));
    assertThat(values(n.log(), "plain")).isEqualTo(expected(PLAIN_MARK, 20));
    long getsBefore = n.readStats().objectGets();
    assertThat(values(n.log(), "secret")).isEqualTo(expected(SECRET_MARK, 20));
    dev.loam.testing.Eventually.await(
        () -> n.readStats().diskWrites() > 0, "the disk cache is written");
    // The disk cache holds sealed bytes only.
    DiskCacheFiles.assertNoneContains(dir.resolve("cache"), SECRET_MARK);
    assertThat(n.readStats().objectGets()).isGreaterThanOrEqualTo(getsBefore);
  }

  @Test
  void fencedAppendsOfAnEncryptedNamespaceAreSealedToo() throws Exception {
    LoamNode n = start("n1", noTail(), Duration.ofSeconds(5));
    setUpStreams(n.log());
    dev.loam.api.WriterLease lease =
        n.log()
            .acquireWriterLease("secret", "s", 0, "job", "worker-1", Duration.ofSeconds(30))
            .join();
    List<AppendRecord> records = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      records.add(AppendRecord.of("k" + i, SECRET_MARK + "fenced-" + i));
    }
    n.log()
        .appendFenced(
            "secret",
            "s",
            0,
            "job",
            lease.epoch(),
            List.of(new dev.loam.api.SourceGroup(0, 4, records)))
        .join();
    assertThat(walKeys()).isNotEmpty();
    for (String key : walKeys()) {
      byte[] bytes = cluster.memoryStore.get(key).join();
      assertThat(new String(bytes, StandardCharsets.ISO_8859_1))
          .as("WAL object %s", key)
          .doesNotContain(SECRET_MARK);
    }
    List<String> read = new ArrayList<>();
    for (FetchedRecord r :
        n.log().fetch("secret", "s", 0, 0, 1 << 20, Duration.ZERO).join().records()) {
      read.add(new String(r.value(), StandardCharsets.UTF_8));
    }
    assertThat(read).hasSize(5).allMatch(v -> v.startsWith(SECRET_MARK + "fenced-"));
  }

  @Test
  void theTailCacheServesPlaintextFromMemoryAndRotationKeepsOldDataReadable() {
    LoamNode n = start("n1", TestCluster.FAST, Duration.ofSeconds(5));
    setUpStreams(n.log());
    appendBoth(n.log(), 0, 5);
    NamespaceKeyInfo rotated = n.log().addNamespaceKey("secret").join();
    assertThat(rotated.keyIds()).hasSize(2);
    appendBoth(n.log(), 5, 5);
    assertThat(values(n.log(), "secret")).isEqualTo(expected(SECRET_MARK, 10));
    assertThat(n.readStats().tailHits()).isPositive();

    // A second node with no tail cache reads both keys' chunks from the store.
    LoamNode other = start("n2", noTail(), Duration.ofSeconds(5));
    assertThat(values(other.log(), "secret")).isEqualTo(expected(SECRET_MARK, 10));
    List<String> keyIds = new ArrayList<>();
    for (String key : walKeys()) {
      WalObject o = WalObjectReader.parse(cluster.memoryStore.get(key).join());
      for (int i = 0; i < o.chunks().size(); i++) {
        if (o.chunks().get(i).sealed()) {
          keyIds.add(
              dev.loam.wal.object.SealedChunk.parseHeader(
                      o.chunk(i),
                      new dev.loam.wal.object.SealedChunk.Binding(
                          key, o.chunks().get(i).streamId(), o.chunks().get(i).partition(), i))
                  .keyId());
        }
      }
    }
    assertThat(keyIds).containsAll(rotated.keyIds());
    assertThat(n.log().describeNamespaceKeys("secret").join()).contains(rotated);
    assertThat(n.log().describeNamespaceKeys("plain").join()).isEmpty();
  }

  @Test
  void afterADestroyEveryReadAndAppendOfTheNamespaceFailsNamingItAndOthersReadBack() {
    LoamNode n = start("n1", TestCluster.FAST, Duration.ofSeconds(5));
    setUpStreams(n.log());
    appendBoth(n.log(), 0, 10);
    LoamNode cold = start("n2", noTail(), Duration.ofSeconds(5));
    assertThat(values(cold.log(), "secret")).isEqualTo(expected(SECRET_MARK, 10));

    NamespaceKeyInfo shredded = n.log().destroyNamespaceKeys("secret").join();
    assertThat(shredded.destroyed()).isTrue();
    assertThat(n.log().destroyNamespaceKeys("secret").join()).isEqualTo(shredded);

    for (LoamNode node : List.of(n, cold)) {
      // The writer's tail cache still holds plaintext in memory: it is never served after this.
      for (int p = 0; p < 2; p++) {
        int part = p;
        assertThatThrownBy(
                () -> node.log().fetch("secret", "s", part, 0, 1 << 20, Duration.ZERO).join())
            .extracting(EncryptedNamespaceNodeTest::cause)
            .isInstanceOfSatisfying(
                KeyDestroyedException.class, e -> assertThat(e.namespace()).isEqualTo("secret"));
      }
      assertThatThrownBy(
              () -> node.log().append("secret", "s", List.of(AppendRecord.of("k", "v"))).join())
          .extracting(EncryptedNamespaceNodeTest::cause)
          .isInstanceOf(KeyDestroyedException.class)
          .extracting(Throwable::getMessage)
          .asString()
          .contains("namespace=secret");
      assertThat(values(node.log(), "plain")).isEqualTo(expected(PLAIN_MARK, 10));
    }
    assertThatThrownBy(() -> n.log().addNamespaceKey("secret").join())
        .extracting(EncryptedNamespaceNodeTest::cause)
        .isInstanceOf(KeyDestroyedException.class);
    // A fresh node (empty key ring): the sealed chunks do not open either.
    LoamNode fresh = start("n3", noTail(), Duration.ofSeconds(5));
    assertThatThrownBy(() -> fresh.log().fetch("secret", "s", 0, 0, 1 << 20, Duration.ZERO).join())
        .extracting(EncryptedNamespaceNodeTest::cause)
        .isInstanceOf(KeyDestroyedException.class);
    assertThat(values(fresh.log(), "plain")).isEqualTo(expected(PLAIN_MARK, 10));
  }

  @Test
  void aSlowKmsFailsThatNamespacesAppendsOnlyNamingIt() {
    LoamNode n = start("n1", TestCluster.FAST, Duration.ofSeconds(5));
    setUpStreams(n.log());
    appendBoth(n.log(), 0, 2);
    // A node that has not unwrapped the key yet, whose KMS now answers "secret" only after 5 s.
    kms.delayMillis.put("secret", 5_000L);
    LoamNode slow = start("n2", TestCluster.FAST, Duration.ofMillis(200));
    long t0 = System.nanoTime();
    CompletableFuture<?> blocked =
        slow.log().append("secret", "s", List.of(AppendRecord.of("k", SECRET_MARK + "x")));
    // Meanwhile the plain namespace appends and reads on the same node, unaffected.
    for (int i = 0; i < 5; i++) {
      slow.log()
          .append("plain", "s", List.of(AppendRecord.of("k", PLAIN_MARK + "late" + i)))
          .join();
    }
    assertThatThrownBy(blocked::join)
        .extracting(EncryptedNamespaceNodeTest::cause)
        .isInstanceOfSatisfying(
            LoamException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(LoamException.Kind.UNAVAILABLE);
              assertThat(e.getMessage()).contains("namespace=secret");
            });
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(4));
    assertThat(values(slow.log(), "plain")).hasSize(2 + 5);
    kms.delayMillis.remove("secret");
    slow.log().append("secret", "s", List.of(AppendRecord.of("k", SECRET_MARK + "y"))).join();
  }

  @Test
  void withoutAKmsANamespaceCannotBeGivenAKey() throws IOException {
    LoamNode n = cluster.start("n1", TestCluster.FAST);
    n.log().createNamespace("x").join();
    assertThatThrownBy(() -> n.log().addNamespaceKey("x").join())
        .extracting(EncryptedNamespaceNodeTest::cause)
        .isInstanceOfSatisfying(
            LoamException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
              assertThat(e.getMessage()).contains("key-management service", "namespace=x");
            });
    assertThatThrownBy(() -> n.log().addNamespaceKey("missing").join())
        .extracting(EncryptedNamespaceNodeTest::cause)
        .isInstanceOf(LoamException.class);
  }
}
