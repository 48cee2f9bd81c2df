package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.core.ObjectLayout;
import dev.loam.core.runtime.SystemDrivers;
import dev.loam.error.KeyDestroyedException;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.spi.store.TailRead;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordBatches;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.object.WalObjectReader;
import dev.loam.wal.ulid.Ulid;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One WAL object in the store holds chunks of an encrypted and a plain namespace. Read back by a
 * tail read and one ranged GET per chunk, as the fetch path and segmenter do, through a node's
 * {@link NamespaceKeyRing}: before the encrypted namespace's master key is destroyed both read
 * back; after, the plain namespace still reads back completely and every chunk of the encrypted one
 * fails with {@link KeyDestroyedException} naming it.
 */
class CryptoShreddingTest {
  @TempDir Path dir;

  static byte[] batch(String value) {
    return RecordBatchEncoder.encode(
        BatchSettings.plain(Compression.NONE),
        List.of(RecordData.of(1L, null, value.getBytes(StandardCharsets.UTF_8))));
  }

  record Read(long streamId, Object result) {}

  static List<Read> readAll(InMemoryObjectStore store, String key, NamespaceKeyRing ring)
      throws Exception {
    TailRead tail =
        store.getTail(key, WalObjectReader.SUGGESTED_TAIL_READ).get(5, TimeUnit.SECONDS);
    WalObjectReader.WalIndex index = WalObjectReader.parseIndex(tail.bytes(), tail.objectSize());
    List<Read> out = new ArrayList<>();
    for (int i = 0; i < index.chunks().size(); i++) {
      ChunkIndexEntry e = index.chunks().get(i);
      byte[] chunk = store.get(key, e.offset(), e.length()).get(5, TimeUnit.SECONDS);
      int idx = i;
      Object result;
      try {
        ByteBuffer plain = WalObjectReader.openChunk(ByteBuffer.wrap(chunk), e, idx, key, ring);
        List<String> values = new ArrayList<>();
        for (RecordBatch b : RecordBatches.parseAll(plain)) {
          b.records().forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
        }
        result = values;
      } catch (RuntimeException ex) {
        result = ex;
      }
      out.add(new Read(e.streamId(), result));
    }
    return out;
  }

  @Test
  void destroyingOneNamespaceKeyShredsExactlyItsChunks() throws Exception {
    InstantSource clock = SystemDrivers.clock();
    InMemoryObjectStore store = new InMemoryObjectStore(clock);
    try (Pkcs12KeyManagementService kms =
        new Pkcs12KeyManagementService(dir.resolve("k.p12"), "pw".toCharArray())) {
      NamespaceKeyRing writer =
          new NamespaceKeyRing(
              store,
              kms,
              "c1",
              clock,
              Duration.ofHours(1),
              Duration.ofSeconds(5),
              SystemDrivers.secureRandom());
      KeyEncryptionKey kek = writer.addKey("secret").get(10, TimeUnit.SECONDS);

      Ulid ulid = new Ulid(clock.millis() << 16, 42);
      String key = ObjectLayout.walKey(DurabilityClass.STANDARD, "c1", "node-1", ulid);
      WalObjectBuilder b =
          new WalObjectBuilder(
              "node-1", ulid, DurabilityClass.STANDARD, key, SystemDrivers.secureRandom());
      // Streams 1 and 3 belong to "secret", 2 to a plain namespace.
      b.add(1, 0, ChunkEncoding.KAFKA, batch("s1-a"), kek);
      b.add(2, 0, ChunkEncoding.KAFKA, batch("p2-a"));
      b.add(1, 0, ChunkEncoding.KAFKA, batch("s1-b"), kek);
      b.add(3, 0, ChunkEncoding.KAFKA, batch("s3-a"), kek);
      b.add(2, 0, ChunkEncoding.KAFKA, batch("p2-b"));
      WalObject o = b.build();
      store.create(key, o.bytes()).get(5, TimeUnit.SECONDS);
      assertThat(new String(o.bytes(), StandardCharsets.ISO_8859_1))
          .contains("p2-a")
          .doesNotContain("s1-a")
          .doesNotContain("s3-a");

      NamespaceKeyRing reader =
          new NamespaceKeyRing(
              store,
              kms,
              "c1",
              clock,
              Duration.ofHours(1),
              Duration.ofSeconds(5),
              SystemDrivers.secureRandom());
      assertThat(readAll(store, key, reader))
          .containsExactly(
              new Read(1, List.of("s1-a", "s1-b")),
              new Read(2, List.of("p2-a", "p2-b")),
              new Read(3, List.of("s3-a")));

      kms.destroy("secret").get(10, TimeUnit.SECONDS);
      reader.forget("secret");
      // A node that never held the key, and the one that did once it forgot it.
      NamespaceKeyRing fresh =
          new NamespaceKeyRing(
              store,
              kms,
              "c1",
              clock,
              Duration.ofHours(1),
              Duration.ofSeconds(5),
              SystemDrivers.secureRandom());
      for (NamespaceKeyRing ring : List.of(reader, fresh)) {
        List<Read> after = readAll(store, key, ring);
        assertThat(after.get(1)).isEqualTo(new Read(2, List.of("p2-a", "p2-b")));
        for (Read r : List.of(after.get(0), after.get(2))) {
          assertThat(r.result())
              .isInstanceOf(KeyDestroyedException.class)
              .asString()
              .contains("namespace=secret");
        }
      }
      // A full parse (CRCs only, no keys) still succeeds: GC and repair tools can handle the
      // object.
      assertThat(catchThrowable(() -> WalObjectReader.parse(o.bytes()))).isNull();
    }
  }
}
