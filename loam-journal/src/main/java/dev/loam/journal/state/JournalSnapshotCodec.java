package dev.loam.journal.state;

import dev.loam.error.CorruptionException;
import dev.loam.journal.entry.JournalEntryCodec;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.state.JournalState.PartitionKey;
import dev.loam.wal.batch.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The journal snapshot format (docs/formats/journal-snapshot-v1.md, journal-snapshot-v2.md). A
 * snapshot is written as version 1 while every partition still holds its pointers from its start
 * offset on, so replicas that read only version 1 keep reading it, and as version 2 once a
 * partition dropped its oldest pointers. Pure and thread-safe.
 */
final class JournalSnapshotCodec {
  /** ASCII {@code LJNS}. */
  static final int MAGIC = 0x4C4A4E53;

  /** Every partition's pointers start at its start offset. */
  static final int VERSION_COMPLETE = 1;

  /** A partition's pointers may start above its start offset (the oldest were dropped). */
  static final int VERSION_SUFFIX = 2;

  static final int MAX_PARTITIONS = 1 << 20;
  static final int MAX_SEGMENTS = 1 << 20;
  static final int MAX_PRODUCERS = 1 << 20;
  static final int MAX_TAIL = 1 << 24;

  private JournalSnapshotCodec() {}

  static byte[] encode(JournalState s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    try {
      out.writeInt(MAGIC);
      out.writeShort(versionOf(s));
      out.writeShort(0);
      out.writeLong(s.appliedEntries);
      out.writeInt(s.partitions.size());
      for (Map.Entry<PartitionKey, PartitionJournal> e : s.partitions.entrySet()) {
        PartitionJournal p = e.getValue();
        out.writeLong(e.getKey().streamId());
        out.writeInt(e.getKey().partition());
        out.writeLong(p.startOffset);
        out.writeLong(p.sealedOffset);
        out.writeLong(p.nextOffset);
        out.writeInt(p.segments.size());
        for (SegmentPointer seg : p.segments) {
          byte[] key = seg.key().getBytes(StandardCharsets.UTF_8);
          out.writeLong(seg.baseOffset());
          out.writeLong(seg.endOffset());
          out.writeShort(key.length);
          out.write(key);
        }
        out.writeInt(p.producers.producers.size());
        for (Map.Entry<Long, ProducerTable.Producer> pe : p.producers.producers.entrySet()) {
          out.writeLong(pe.getKey());
          out.writeShort(pe.getValue().epoch);
          out.writeByte(pe.getValue().batches.size());
          for (ProducerTable.Batch b : pe.getValue().batches) {
            out.writeInt(b.baseSequence());
            out.writeInt(b.lastSequence());
            out.writeLong(b.baseOffset());
          }
        }
        out.writeInt(p.tail.size());
        for (TailBatch t : p.tail) {
          out.writeInt(t.bytes().length);
          out.write(t.bytes());
        }
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    byte[] body = bytes.toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(body);
    return ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).array();
  }

  private static int versionOf(JournalState s) {
    for (PartitionJournal p : s.partitions.values()) {
      if (!p.segments.isEmpty() && p.segments.get(0).baseOffset() != p.startOffset) {
        return VERSION_SUFFIX;
      }
    }
    return VERSION_COMPLETE;
  }

  static JournalState decode(byte[] bytes, long maxUnsealedBytes) {
    if (bytes.length < 24) {
      throw new CorruptionException("journal snapshot: truncated length=" + bytes.length);
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer b = ByteBuffer.wrap(bytes, 0, bytes.length - 4);
    if ((int) crc.getValue() != ByteBuffer.wrap(bytes).getInt(bytes.length - 4)) {
      throw new CorruptionException("journal snapshot: bad crc32c length=" + bytes.length);
    }
    try {
      return decodeBody(b, maxUnsealedBytes);
    } catch (BufferUnderflowException e) {
      throw new CorruptionException("journal snapshot: truncated length=" + bytes.length, e);
    }
  }

  private static JournalState decodeBody(ByteBuffer b, long maxUnsealedBytes) {
    int magic = b.getInt();
    if (magic != MAGIC) {
      throw new CorruptionException(
          "journal snapshot: bad magic magic=0x" + Integer.toHexString(magic));
    }
    int version = Short.toUnsignedInt(b.getShort());
    if (version != VERSION_COMPLETE && version != VERSION_SUFFIX) {
      throw new CorruptionException("journal snapshot: unsupported version version=" + version);
    }
    int reserved = Short.toUnsignedInt(b.getShort());
    if (reserved != 0) {
      throw new CorruptionException("journal snapshot: reserved not zero reserved=" + reserved);
    }
    JournalState s = new JournalState(maxUnsealedBytes);
    s.appliedEntries = b.getLong();
    if (s.appliedEntries < 0) {
      throw new CorruptionException(
          "journal snapshot: negative applied entries appliedEntries=" + s.appliedEntries);
    }
    int partitions = count(b, MAX_PARTITIONS, "partition_count", "");
    PartitionKey previous = null;
    boolean suffixSeen = false;
    for (int i = 0; i < partitions; i++) {
      PartitionKey key = new PartitionKey(b.getLong(), b.getInt());
      String ids = " stream=" + key.streamId() + " partition=" + key.partition();
      if (key.streamId() < 0 || key.partition() < 0) {
        throw new CorruptionException("journal snapshot: negative stream or partition" + ids);
      }
      if (previous != null && previous.compareTo(key) >= 0) {
        throw new CorruptionException("journal snapshot: partitions not sorted" + ids);
      }
      previous = key;
      PartitionJournal p = decodePartition(b, version, ids);
      suffixSeen |= !p.segments.isEmpty() && p.segments.get(0).baseOffset() != p.startOffset;
      s.partitions.put(key, p);
    }
    if (version == VERSION_SUFFIX && !suffixSeen) {
      // One state, one encoding: with every pointer list complete the writer writes version 1.
      throw new CorruptionException(
          "journal snapshot: version 2 with every partition's segments from its start offset");
    }
    if (b.hasRemaining()) {
      throw new CorruptionException("journal snapshot: trailing bytes n=" + b.remaining());
    }
    s.recountUnsealed();
    return s;
  }

  private static PartitionJournal decodePartition(ByteBuffer b, int version, String ids) {
    long start = b.getLong();
    long sealed = b.getLong();
    long next = b.getLong();
    if (start < 0 || sealed < start || next < sealed) {
      throw new CorruptionException(
          "journal snapshot: offsets out of order"
              + ids
              + " start="
              + start
              + " sealed="
              + sealed
              + " next="
              + next);
    }
    PartitionJournal p = new PartitionJournal(start);
    long at = start;
    int segments = count(b, MAX_SEGMENTS, "segment_count", ids);
    for (int i = 0; i < segments; i++) {
      long base = b.getLong();
      long end = b.getLong();
      int keyLength = Short.toUnsignedInt(b.getShort());
      // Version 2: the first kept pointer may start anywhere from the start offset on; every next
      // one starts where the previous ended.
      boolean firstOfSuffix = i == 0 && version == VERSION_SUFFIX && base >= start;
      if ((base != at && !firstOfSuffix)
          || end <= base
          || keyLength < 1
          || keyLength > SegmentPointer.MAX_KEY_BYTES) {
        throw new CorruptionException(
            "journal snapshot: bad segment" + ids + " base=" + base + " end=" + end);
      }
      p.segments.add(new SegmentPointer(base, end, utf8(b, keyLength)));
      at = end;
    }
    if (at != sealed) {
      throw new CorruptionException(
          "journal snapshot: segments do not end at the sealed offset" + ids + " end=" + at);
    }
    int producers = count(b, MAX_PRODUCERS, "producer_count", ids);
    long previousId = -1;
    for (int i = 0; i < producers; i++) {
      long id = b.getLong();
      short epoch = b.getShort();
      int n = Byte.toUnsignedInt(b.get());
      if (id <= previousId || epoch < 0 || n < 1 || n > ProducerTable.BATCHES_KEPT) {
        throw new CorruptionException(
            "journal snapshot: bad producer" + ids + " producerId=" + id + " batches=" + n);
      }
      previousId = id;
      ProducerTable.Producer pr = new ProducerTable.Producer(epoch);
      for (int j = 0; j < n; j++) {
        pr.batches.addLast(new ProducerTable.Batch(b.getInt(), b.getInt(), b.getLong()));
      }
      p.producers.producers.put(id, pr);
    }
    p.sealedOffset = sealed;
    p.nextOffset = sealed;
    int tail = count(b, MAX_TAIL, "tail_count", ids);
    for (int i = 0; i < tail; i++) {
      long length = Integer.toUnsignedLong(b.getInt());
      if (length > JournalEntryCodec.MAX_BODY_BYTES || length > b.remaining()) {
        throw new CorruptionException(
            "journal snapshot: bad tail batch length" + ids + " length=" + length);
      }
      byte[] batch = new byte[(int) length];
      b.get(batch);
      ByteBuffer one = ByteBuffer.wrap(batch);
      RecordBatch rb = RecordBatch.readFrom(one);
      if (one.hasRemaining()
          || rb.baseOffset() != p.nextOffset
          || rb.recordCount() < 1
          || rb.lastOffsetDelta() != rb.recordCount() - 1) {
        throw new CorruptionException(
            "journal snapshot: tail batch out of place"
                + ids
                + " baseOffset="
                + rb.baseOffset()
                + " expected="
                + p.nextOffset);
      }
      p.addTail(new TailBatch(rb.baseOffset(), rb.recordCount(), batch));
    }
    if (p.nextOffset != next) {
      throw new CorruptionException(
          "journal snapshot: tail does not end at the next offset"
              + ids
              + " end="
              + p.nextOffset
              + " next="
              + next);
    }
    return p;
  }

  private static int count(ByteBuffer b, int max, String field, String ids) {
    long n = Integer.toUnsignedLong(b.getInt());
    if (n > max) {
      throw new CorruptionException("journal snapshot: " + field + " too large" + ids + " n=" + n);
    }
    return (int) n;
  }

  private static String utf8(ByteBuffer b, int n) {
    byte[] k = new byte[n];
    b.get(k);
    String s = new String(k, StandardCharsets.UTF_8);
    if (!java.util.Arrays.equals(s.getBytes(StandardCharsets.UTF_8), k)) {
      throw new CorruptionException("journal snapshot: segment key is not valid UTF-8");
    }
    return s;
  }
}
