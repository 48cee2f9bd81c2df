package dev.loam.core.read;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Recently written batches kept in memory (stream-engine.txt §6 step 2, first tier), keyed by where
 * they live in their WAL object, so a fetch of the tail needs no GET. Filled by the writing node
 * when the object's PUT completes. Bounded in bytes; evicts the oldest insertions first.
 * Thread-safe.
 *
 * <p>The bytes live in a ring of large chunks ({@link #CHUNK_BYTES}), not in one array per batch: a
 * chunk is allocated once and reused, and an array that large is allocated outside the young
 * generation by G1, so the cache's tens of megabytes are never copied by young collections. Kept as
 * per-batch arrays they were live young data at every collection, and the copying made young pauses
 * of ~90 ms at 20 MB/s (JFR; docs/operations/performance.md "GC and the ack tail"). Batches larger
 * than a chunk are not cached.
 */
public final class TailCache {
  /** Chunk size; each chunk is filled front to back, then the oldest is reused. */
  static final int CHUNK_BYTES = 4 << 20;

  private record Key(String objectKey, long byteOffset) {}

  private record Slot(int chunk, int offset, int length) {}

  private final int chunkBytes;
  private final int maxChunks;
  private final List<byte[]> chunks = new ArrayList<>();
  // Per chunk, the keys stored in it, dropped together when the chunk is reused.
  private final List<List<Key>> keysOf = new ArrayList<>();
  private final Map<Key, Slot> slots = new HashMap<>();
  private int current = -1;
  private int fill;
  private long hits;
  private long misses;

  public TailCache(long capacityBytes) {
    this(capacityBytes, CHUNK_BYTES);
  }

  /** With another chunk size (tests). */
  public TailCache(long capacityBytes, int chunkSize) {
    this.chunkBytes = (int) Math.max(0, Math.min(chunkSize, capacityBytes));
    this.maxChunks = chunkBytes == 0 ? 0 : (int) Math.max(1, capacityBytes / chunkBytes);
  }

  /** Remembers one batch's bytes at {@code byteOffset} of {@code objectKey}. */
  public synchronized void put(String objectKey, long byteOffset, byte[] batch) {
    if (batch.length > chunkBytes || batch.length == 0) {
      return;
    }
    Key key = new Key(objectKey, byteOffset);
    if (slots.containsKey(key)) {
      return; // the bytes at one place of one object never change
    }
    if (current < 0 || fill + batch.length > chunkBytes) {
      nextChunk();
    }
    System.arraycopy(batch, 0, chunks.get(current), fill, batch.length);
    slots.put(key, new Slot(current, fill, batch.length));
    keysOf.get(current).add(key);
    fill += batch.length;
  }

  // Moves to the next chunk: a new one while below the bound, else the oldest, emptied first.
  private void nextChunk() {
    if (chunks.size() < maxChunks) {
      chunks.add(new byte[chunkBytes]);
      keysOf.add(new ArrayList<>());
      current = chunks.size() - 1;
    } else {
      current = (current + 1) % chunks.size();
      for (Key k : keysOf.get(current)) {
        slots.remove(k);
      }
      keysOf.get(current).clear();
    }
    fill = 0;
  }

  /**
   * The bytes {@code [byteOffset, byteOffset + length)} of {@code objectKey} if every batch in that
   * range is cached, else null. Always a fresh array.
   */
  public synchronized byte[] get(String objectKey, long byteOffset, int length) {
    Slot first = slots.get(new Key(objectKey, byteOffset));
    if (first == null || length < 0) {
      misses++;
      return null;
    }
    byte[] out = new byte[length];
    int filled = 0;
    Slot s = first;
    while (true) {
      if (filled + s.length() > length) {
        misses++;
        return null;
      }
      System.arraycopy(chunks.get(s.chunk()), s.offset(), out, filled, s.length());
      filled += s.length();
      if (filled == length) {
        hits++;
        return out;
      }
      s = slots.get(new Key(objectKey, byteOffset + filled));
      if (s == null) {
        misses++;
        return null;
      }
    }
  }

  public synchronized long hits() {
    return hits;
  }

  public synchronized long misses() {
    return misses;
  }
}
