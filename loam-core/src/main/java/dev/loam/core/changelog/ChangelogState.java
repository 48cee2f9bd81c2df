package dev.loam.core.changelog;

import dev.loam.error.CorruptionException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * A changelog worker's state (docs/design/changelog.md "The worker"): for one source partition,
 * each key with a live row mapped to the offset of that row's record, as of {@code position} (the
 * state holds every source record up to and including it). Bounded by {@code maxKeys}; encoded as
 * the checkpoint object of "The state checkpoint". Not thread-safe: one worker owns it.
 */
public final class ChangelogState {
  /** Checkpoint magic, ASCII {@code LCLS}. */
  static final int MAGIC = 0x4C434C53;

  static final int VERSION = 1;

  private static final int HEADER_BYTES = 4 + 2 + 2 + 8 + 4 + 8 + 4;

  private final long sourceStreamId;
  private final int partition;
  private final int maxKeys;
  private final TreeMap<Key, Long> rows = new TreeMap<>();
  private long position;

  /** An empty state before the first source record (position -1). */
  public ChangelogState(long sourceStreamId, int partition, int maxKeys) {
    this.sourceStreamId = sourceStreamId;
    this.partition = partition;
    this.maxKeys = maxKeys;
    this.position = -1;
  }

  /** A key compared as unsigned bytes, so the checkpoint's order is the same on every JVM. */
  record Key(byte[] bytes) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }
  }

  /** The offset of the live row of {@code key}, or -1 when it has none. */
  public long rowOffset(byte[] key) {
    Long o = rows.get(new Key(key));
    return o == null ? -1 : o;
  }

  /**
   * Applies one source record at {@code offset}: a value makes it the key's live row, a tombstone
   * removes the row. A record without a key changes nothing. Records must come in offset order.
   *
   * @throws IllegalStateException when a new key would exceed {@code maxKeys}
   */
  public void apply(long offset, byte[] key, boolean tombstone) {
    if (offset <= position) {
      throw new IllegalArgumentException(
          "source records must be applied in offset order offset="
              + offset
              + " position="
              + position);
    }
    if (key != null) {
      Key k = new Key(key.clone());
      if (tombstone) {
        rows.remove(k);
      } else {
        if (rows.size() >= maxKeys && !rows.containsKey(k)) {
          throw new IllegalStateException(
              "the changelog state is full (maxKeys="
                  + maxKeys
                  + ") sourceStreamId="
                  + sourceStreamId
                  + " partition="
                  + partition
                  + " offset="
                  + offset);
        }
        rows.put(k, offset);
      }
    }
    position = offset;
  }

  /** Moves the position past source offsets that held no record (compacted away or none). */
  public void advanceTo(long offset) {
    position = Math.max(position, offset);
  }

  /** The last source offset the state holds; -1 before the first. */
  public long position() {
    return position;
  }

  /** The number of keys with a live row. */
  public int size() {
    return rows.size();
  }

  /** The checkpoint bytes of this state (docs/design/changelog.md "The state checkpoint"). */
  public byte[] encode() {
    long size = HEADER_BYTES + 4L;
    for (Key k : rows.keySet()) {
      size += 4 + k.bytes.length + 8;
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("changelog checkpoint too large bytes=" + size);
    }
    ByteBuffer b = ByteBuffer.allocate((int) size);
    b.putInt(MAGIC).putShort((short) VERSION).putShort((short) 0);
    b.putLong(sourceStreamId).putInt(partition).putLong(position).putInt(rows.size());
    for (Map.Entry<Key, Long> e : rows.entrySet()) {
      b.putInt(e.getKey().bytes.length).put(e.getKey().bytes).putLong(e.getValue());
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    return b.array();
  }

  /**
   * Decodes a checkpoint of {@code (sourceStreamId, partition)}; any failed check (magic, version,
   * flags, CRC, identity, lengths, key order, offsets) is a {@link CorruptionException} naming the
   * field, and nothing of the bytes is used.
   */
  public static ChangelogState decode(
      byte[] bytes, long sourceStreamId, int partition, int maxKeys) {
    if (bytes.length < HEADER_BYTES + 4) {
      throw corrupt("length", "too short length=" + bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    int stored = b.getInt(bytes.length - 4);
    if (stored != (int) crc.getValue()) {
      throw corrupt("crc32c", "checksum mismatch");
    }
    if (b.getInt() != MAGIC) {
      throw corrupt("magic", "bad magic");
    }
    int version = b.getShort();
    if (version != VERSION) {
      throw corrupt("version", "unsupported version=" + version);
    }
    if (b.getShort() != 0) {
      throw corrupt("flags", "reserved flags must be 0");
    }
    long stream = b.getLong();
    int p = b.getInt();
    if (stream != sourceStreamId || p != partition) {
      throw corrupt(
          "sourceStreamId",
          "checkpoint of another partition sourceStreamId=" + stream + " partition=" + p);
    }
    long position = b.getLong();
    int n = b.getInt();
    if (position < -1 || n < 0 || n > maxKeys) {
      throw corrupt("count", "bad position or key count position=" + position + " count=" + n);
    }
    ChangelogState s = new ChangelogState(sourceStreamId, partition, maxKeys);
    s.position = position;
    Key prev = null;
    int end = bytes.length - 4;
    for (int i = 0; i < n; i++) {
      if (end - b.position() < 4) {
        throw corrupt("key.length", "truncated at key=" + i);
      }
      int len = b.getInt();
      if (len < 0 || end - b.position() < len + 8L) {
        throw corrupt("key.length", "bad length=" + len + " key=" + i);
      }
      byte[] k = new byte[len];
      b.get(k);
      long offset = b.getLong();
      Key key = new Key(k);
      if (prev != null && prev.compareTo(key) >= 0) {
        throw corrupt("key", "keys not in unsigned byte order or repeated key=" + i);
      }
      if (offset < 0 || offset > position) {
        throw corrupt("offset", "row offset outside [0, position] offset=" + offset);
      }
      s.rows.put(key, offset);
      prev = key;
    }
    if (b.position() != end) {
      throw corrupt("length", "trailing bytes=" + (end - b.position()));
    }
    return s;
  }

  private static CorruptionException corrupt(String field, String message) {
    return new CorruptionException("changelog checkpoint: " + message + " field=" + field, null);
  }
}
