package dev.loam.meta.codec;

import dev.loam.meta.command.AcquireWriterLease;
import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.WriterLease;

/**
 * The encodings of fenced appends (docs/design/changelog.md, docs/formats/metastore-commands.md):
 * AcquireWriterLease (tag 41), the fence of a batch inside a fenced CommitWal (tag 42) or
 * CommitWalGroup (tag 43), and WriterLeaseGranted (outcome tag 28). {@link CommandCodec} and {@link
 * OutcomeCodec} frame them; this class writes and reads the bodies.
 */
public final class WriterLeaseCodec {
  static final int TAG_ACQUIRE_WRITER_LEASE = 41;
  static final int TAG_COMMIT_WAL_FENCED = 42;
  static final int TAG_COMMIT_WAL_GROUP_FENCED = 43;

  static final int TAG_WRITER_LEASE_GRANTED = 28;

  /** The smallest encoded WriterLease: its fixed fields and two empty strings. */
  public static final int MIN_LEASE_BYTES = 8 + 4 + 4 + 8 + 4 + 8 + 8 + 8;

  private WriterLeaseCodec() {}

  static void writeAcquire(BinaryWriter w, AcquireWriterLease c) {
    w.i64(c.streamId()).i32(c.partition()).string(c.source()).string(c.holder());
    w.i64(c.leaseMillis());
  }

  static AcquireWriterLease readAcquire(BinaryReader r, Origin o) {
    return new AcquireWriterLease(
        o,
        r.i64("acquireWriterLease.streamId"),
        r.i32("acquireWriterLease.partition"),
        r.string("acquireWriterLease.source"),
        r.string("acquireWriterLease.holder"),
        r.i64("acquireWriterLease.leaseMillis"));
  }

  /**
   * A batch's fence in the tag 42/43 layout: {@code u8} 0 (no fence) or 1, then the source, epoch
   * and range. Any other flag byte is corruption.
   */
  static void writeFence(BinaryWriter w, Fence f) {
    if (f == null) {
      w.u8(0);
      return;
    }
    w.u8(1).string(f.source()).i64(f.leaseEpoch()).i64(f.sourceFrom()).i64(f.sourceTo());
  }

  static Fence readFence(BinaryReader r) {
    int flag = r.u8("commitWal.batch.fenced");
    if (flag == 0) {
      return null;
    }
    if (flag != 1) {
      throw r.corrupt("commitWal.batch.fenced", "not 0 or 1 flag=" + flag);
    }
    return new Fence(
        r.string("commitWal.batch.fence.source"),
        r.i64("commitWal.batch.fence.leaseEpoch"),
        r.i64("commitWal.batch.fence.sourceFrom"),
        r.i64("commitWal.batch.fence.sourceTo"));
  }

  /** Writes a writer lease (the outcome's and the snapshot's layout). */
  public static void writeLease(BinaryWriter w, WriterLease l) {
    w.i64(l.streamId())
        .i32(l.partition())
        .string(l.source())
        .i64(l.epoch())
        .string(l.holder())
        .i64(l.leaseMillis())
        .i64(l.expiresAtMillis())
        .i64(l.sourceUpto());
  }

  /** Reads what {@link #writeLease} wrote. */
  public static WriterLease readLease(BinaryReader r, String field) {
    return new WriterLease(
        r.i64(field + ".streamId"),
        r.i32(field + ".partition"),
        r.string(field + ".source"),
        r.i64(field + ".epoch"),
        r.string(field + ".holder"),
        r.i64(field + ".leaseMillis"),
        r.i64(field + ".expiresAtMillis"),
        r.i64(field + ".sourceUpto"));
  }
}
