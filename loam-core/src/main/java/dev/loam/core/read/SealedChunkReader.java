package dev.loam.core.read;

import dev.loam.core.ObjectLayout;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.IndexEntry;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.SealedChunk;
import dev.loam.wal.object.WalObjectReader;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads index entries that may lie in sealed WAL chunks (docs/formats/wal-object-v2.md). The write
 * path indexes a sealed chunk's batch at its ciphertext's position in the object, so an entry names
 * a real byte range either way; this reader finds the chunk that holds the range in the object's
 * chunk index and, when that chunk is sealed, loads the whole chunk through the caller's tiers (so
 * the disk cache and the read-ahead memory hold only sealed bytes), opens it with the namespace's
 * key and returns the entry's plaintext. Plain chunks are loaded exactly as before.
 *
 * <p>Only WAL entries are looked up, and only while some namespace of the cluster has a key: a
 * cluster that never encrypted reads with no extra request. Each object's chunk index is fetched
 * once (a HEAD and a tail GET) and kept for the {@value #MAX_INDEXES} objects read most recently;
 * objects never change, so an index never goes stale. Thread-safe.
 */
final class SealedChunkReader {
  /** The most objects whose chunk index is held (a few KB each). */
  static final int MAX_INDEXES = 4096;

  /**
   * Memory for opened chunks' plaintext: a consumer reading a chunk's entries one by one opens it
   * once instead of once per entry (each open decrypts the whole chunk; docs/operations/
   * performance.md, "Reads of an encrypted namespace"). Memory only, never on disk.
   */
  static final long OPENED_BYTES = 16L << 20;

  /** An opened chunk: its plaintext, where the ciphertext starts in it, and its key id. */
  private record Opened(byte[] plain, int headerLength, String keyId) {}

  private final LinkedHashMap<String, Opened> opened = new LinkedHashMap<>(64, 0.75f, true);
  private final long openedCapacity;
  private long openedBytes;
  private final java.util.concurrent.atomic.AtomicLong opens =
      new java.util.concurrent.atomic.AtomicLong();

  /** Loads a byte range of an object through some tiers of the read path. */
  @FunctionalInterface
  interface RangeLoader {
    CompletableFuture<byte[]> load(String key, long offset, int length);
  }

  private final ObjectStore store;
  private final NamespaceEncryption encryption;
  private final Map<String, CompletableFuture<WalObjectReader.WalIndex>> indexes =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(
            Map.Entry<String, CompletableFuture<WalObjectReader.WalIndex>> eldest) {
          return size() > MAX_INDEXES;
        }
      };

  SealedChunkReader(ObjectStore store, NamespaceEncryption encryption) {
    this(store, encryption, OPENED_BYTES);
  }

  /**
   * @param openedCapacity bytes of opened chunks' plaintext held; a chunk larger than a quarter of
   *     it is never held, so 0 opens a chunk on every read
   */
  SealedChunkReader(ObjectStore store, NamespaceEncryption encryption, long openedCapacity) {
    this.store = store;
    this.encryption = encryption;
    this.openedCapacity = openedCapacity;
  }

  /** Whether {@code e} may lie in a sealed chunk: a WAL entry while some namespace has a key. */
  boolean mayBeSealed(IndexEntry e) {
    return ObjectLayout.isWal(e.objectKey()) && encryption.anyNamespaceKeys();
  }

  /** The plaintext of entry {@code e}, its range loaded through {@code loader}. */
  CompletableFuture<byte[]> load(IndexEntry e, RangeLoader loader) {
    String key = e.objectKey();
    return index(key)
        .thenCompose(
            ix -> {
              int i = chunkHolding(ix.chunks(), e);
              ChunkIndexEntry c = ix.chunks().get(i);
              if (!c.sealed()) {
                return loader.load(key, e.byteOffset(), e.byteLength());
              }
              Opened held = openedGet(key + "#" + i);
              if (held != null) {
                // The key is still asked for, so a shredded namespace fails even while its
                // plaintext is held here.
                return encryption
                    .openingKey(held.keyId())
                    .thenApply(kek -> slice(e, c, i, held.headerLength(), held.plain()));
              }
              return loader
                  .load(key, c.offset(), c.length())
                  .thenCompose(bytes -> open(e, c, i, bytes));
            });
  }

  private CompletableFuture<byte[]> open(IndexEntry e, ChunkIndexEntry c, int i, byte[] bytes) {
    ByteBuffer chunk = ByteBuffer.wrap(bytes);
    WalObjectReader.verifyChunk(chunk, c);
    SealedChunk.Binding binding =
        new SealedChunk.Binding(e.objectKey(), c.streamId(), c.partition(), i);
    SealedChunk.Header h = SealedChunk.parseHeader(chunk, binding);
    return encryption
        .openingKey(h.keyId())
        .thenApply(
            kek -> {
              ByteBuffer buf = WalObjectReader.openChunk(chunk, c, i, e.objectKey(), id -> kek);
              opens.incrementAndGet();
              byte[] plain = new byte[buf.remaining()];
              buf.duplicate().get(plain);
              openedPut(e.objectKey() + "#" + i, new Opened(plain, h.headerLength(), h.keyId()));
              return slice(e, c, i, h.headerLength(), plain);
            });
  }

  private static byte[] slice(
      IndexEntry e, ChunkIndexEntry c, int i, int headerLength, byte[] plain) {
    long from = e.byteOffset() - c.offset() - headerLength;
    if (from < 0 || from + e.byteLength() > plain.length) {
      throw new CorruptionException(
          "index entry outside the plaintext of its sealed chunk object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset()
              + " byteLength="
              + e.byteLength()
              + " chunkIndex="
              + i);
    }
    byte[] out = new byte[e.byteLength()];
    System.arraycopy(plain, (int) from, out, 0, e.byteLength());
    return out;
  }

  private Opened openedGet(String key) {
    synchronized (opened) {
      return opened.get(key);
    }
  }

  private void openedPut(String key, Opened o) {
    long size = o.plain().length;
    if (size > openedCapacity / 4) {
      return;
    }
    synchronized (opened) {
      Opened before = opened.put(key, o);
      openedBytes += size - (before == null ? 0 : before.plain().length);
      java.util.Iterator<Opened> it = opened.values().iterator();
      while (openedBytes > openedCapacity && it.hasNext()) {
        openedBytes -= it.next().plain().length;
        it.remove();
      }
    }
  }

  /** Sealed chunks decrypted so far (each decrypts the whole chunk); for tests. */
  long chunkOpens() {
    return opens.get();
  }

  /** Bytes of opened chunks held now; for tests. */
  long openedBytes() {
    synchronized (opened) {
      return openedBytes;
    }
  }

  /** The chunk whose stored bytes hold the entry's whole range. */
  private static int chunkHolding(List<ChunkIndexEntry> chunks, IndexEntry e) {
    int lo = 0;
    int hi = chunks.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      ChunkIndexEntry c = chunks.get(mid);
      if (e.byteOffset() < c.offset()) {
        hi = mid - 1;
      } else if (e.byteOffset() >= c.offset() + c.length()) {
        lo = mid + 1;
      } else {
        if (e.byteOffset() + e.byteLength() > c.offset() + c.length()) {
          break;
        }
        return mid;
      }
    }
    throw new CorruptionException(
        "index entry is not inside one chunk of its WAL object object="
            + e.objectKey()
            + " byteOffset="
            + e.byteOffset()
            + " byteLength="
            + e.byteLength());
  }

  private CompletableFuture<WalObjectReader.WalIndex> index(String key) {
    CompletableFuture<WalObjectReader.WalIndex> f;
    synchronized (indexes) {
      f = indexes.get(key);
      if (f == null) {
        f = fetchIndex(key);
        indexes.put(key, f);
      }
    }
    CompletableFuture<WalObjectReader.WalIndex> mine = f;
    // A failed fetch is not kept: the next read asks again.
    mine.whenComplete(
        (v, t) -> {
          if (t != null) {
            synchronized (indexes) {
              indexes.remove(key, mine);
            }
          }
        });
    return f;
  }

  private CompletableFuture<WalObjectReader.WalIndex> fetchIndex(String key) {
    return store
        .head(key)
        .thenCompose(
            (Optional<ObjectInfo> info) -> {
              if (info.isEmpty()) {
                throw new ObjectGoneException(
                    "object referenced by the offset index is missing object=" + key, null);
              }
              long size = info.get().size();
              int first = (int) Math.min(size, WalObjectReader.SUGGESTED_TAIL_READ);
              return store
                  .get(key, size - first, first)
                  .thenCompose(
                      tail -> {
                        WalObjectReader.WalFooter footer = WalObjectReader.parseFooter(tail, size);
                        long need = WalObjectReader.requiredTailLength(footer, size);
                        if (need <= tail.length) {
                          return CompletableFuture.completedFuture(
                              WalObjectReader.parseIndex(tail, size));
                        }
                        return store
                            .get(key, size - need, (int) need)
                            .thenApply(t -> WalObjectReader.parseIndex(t, size));
                      });
            })
        .exceptionally(
            t -> {
              Throwable c =
                  t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
              if (c instanceof LoamException le
                  && le.kind() == Kind.NOT_FOUND
                  && !(c instanceof ObjectGoneException)) {
                throw new ObjectGoneException(
                    "object referenced by the offset index is missing object=" + key, c);
              }
              throw c instanceof RuntimeException re ? re : new CompletionException(c);
            });
  }

  /** Drops deleted objects' indexes (GC's deletes). */
  void invalidate(List<String> keys) {
    synchronized (indexes) {
      keys.forEach(indexes::remove);
    }
    java.util.Set<String> gone = new java.util.HashSet<>(keys);
    synchronized (opened) {
      java.util.Iterator<Map.Entry<String, Opened>> it = opened.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<String, Opened> en = it.next();
        String k = en.getKey();
        if (gone.contains(k.substring(0, k.lastIndexOf('#')))) {
          openedBytes -= en.getValue().plain().length;
          it.remove();
        }
      }
    }
  }
}
