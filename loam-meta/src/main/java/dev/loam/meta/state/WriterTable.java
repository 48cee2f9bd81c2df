package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.WriterLeaseCodec;
import dev.loam.meta.command.AcquireWriterLease;
import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.WriterLease;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Writer leases and source positions of fenced appends (docs/design/changelog.md, the exactly-once
 * rule of stream-engine.txt §8.1): per (stream, partition, source) the lease epoch that may append
 * and the highest source position already appended. Applies AcquireWriterLease, judges each fenced
 * batch for the {@link Sequencer}, drops a deleted stream's leases, and writes and reads its
 * snapshot section (version 11).
 */
final class WriterTable {
  /** Writer leases per partition at most (STYLE.md §9), as for named consumers. */
  static final int MAX_WRITERS_PER_PARTITION = 1024;

  private final Catalog catalog;

  private final TreeMap<WriterKey, WriterLease> leases = new TreeMap<>();

  WriterTable(Catalog catalog) {
    this.catalog = catalog;
  }

  /** The key of one writer lease; sorted so reads and snapshots are ordered. */
  private record WriterKey(long streamId, int partition, String source)
      implements Comparable<WriterKey> {
    @Override
    public int compareTo(WriterKey o) {
      int c = Long.compare(streamId, o.streamId);
      if (c == 0) {
        c = Integer.compare(partition, o.partition);
      }
      return c != 0 ? c : source.compareTo(o.source);
    }
  }

  // ---- the rules

  Outcome acquire(AcquireWriterLease c, long clockMillis) {
    String where = text(c.streamId(), c.partition(), c.source());
    if (!Catalog.validName(c.source())) {
      return Catalog.invalidName("source", c.source());
    }
    if (c.holder().isEmpty() || c.holder().length() > AcquireWriterLease.MAX_HOLDER_LENGTH) {
      return rejected(
          RejectReason.INVALID,
          "holder must be 1.."
              + AcquireWriterLease.MAX_HOLDER_LENGTH
              + " characters"
              + where
              + " holderLength="
              + c.holder().length());
    }
    if (c.leaseMillis() < 1 || c.leaseMillis() > AcquireWriterLease.MAX_LEASE_MILLIS) {
      return rejected(
          RejectReason.INVALID,
          "leaseMillis must be 1.."
              + AcquireWriterLease.MAX_LEASE_MILLIS
              + where
              + " leaseMillis="
              + c.leaseMillis());
    }
    if (catalog.partitionState(c.streamId(), c.partition()) == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream or partition" + where);
    }
    WriterKey key = new WriterKey(c.streamId(), c.partition(), c.source());
    WriterLease cur = leases.get(key);
    long expires = saturatedAdd(clockMillis, c.leaseMillis());
    WriterLease next;
    if (cur == null) {
      if (of(c.streamId(), c.partition()).size() >= MAX_WRITERS_PER_PARTITION) {
        return rejected(
            RejectReason.INVALID,
            "too many writer leases on the partition max=" + MAX_WRITERS_PER_PARTITION + where);
      }
      next =
          new WriterLease(
              c.streamId(),
              c.partition(),
              c.source(),
              1,
              c.holder(),
              c.leaseMillis(),
              expires,
              WriterLease.NOTHING);
    } else if (cur.liveAt(clockMillis)) {
      if (!cur.holder().equals(c.holder())) {
        // Never taken over while live: the holder may be appending right now.
        return rejected(
            RejectReason.CONFLICT,
            "the writer lease is held by another holder"
                + where
                + " holder="
                + cur.holder()
                + " epoch="
                + cur.epoch()
                + " expiresAtMillis="
                + cur.expiresAtMillis()
                + " clock="
                + clockMillis);
      }
      next = with(cur, cur.epoch(), cur.holder(), c.leaseMillis(), expires, cur.sourceUpto());
    } else {
      // Expired: a new term fences every append of the old one, even by the same holder. The
      // source position belongs to the partition, not to the term: it stays.
      next = with(cur, cur.epoch() + 1, c.holder(), c.leaseMillis(), expires, cur.sourceUpto());
    }
    leases.put(key, next);
    return new Outcome.WriterLeaseGranted(next);
  }

  /**
   * Judges one fenced batch about to be sequenced into {@code (streamId, partition)}: APPENDED when
   * it is to be appended (then {@link #appended} must follow), else why not. The order of the
   * checks is the contract: fencing first, so a stale writer learns only that it is stale.
   */
  BatchStatus check(long streamId, int partition, Fence f, long clockMillis) {
    WriterLease cur = leases.get(new WriterKey(streamId, partition, f.source()));
    if (cur == null || cur.epoch() != f.leaseEpoch() || !cur.liveAt(clockMillis)) {
      return BatchStatus.WRITER_FENCED;
    }
    if (f.sourceTo() <= cur.sourceUpto()) {
      return BatchStatus.ALREADY_APPENDED;
    }
    if (f.sourceFrom() == cur.sourceUpto() + 1) {
      return BatchStatus.APPENDED;
    }
    return f.sourceFrom() <= cur.sourceUpto() ? BatchStatus.SOURCE_OVERLAP : BatchStatus.SOURCE_GAP;
  }

  /** Records an appended fenced batch: the source position moves to its end, the lease renews. */
  void appended(long streamId, int partition, Fence f, long clockMillis) {
    WriterKey key = new WriterKey(streamId, partition, f.source());
    WriterLease cur = leases.get(key);
    leases.put(
        key,
        with(
            cur,
            cur.epoch(),
            cur.holder(),
            cur.leaseMillis(),
            saturatedAdd(clockMillis, cur.leaseMillis()),
            f.sourceTo()));
  }

  /** Drops a deleted stream's leases: a stream re-created under its name starts without any. */
  void dropStream(long streamId) {
    leases
        .subMap(
            new WriterKey(streamId, Integer.MIN_VALUE, ""),
            true,
            new WriterKey(streamId, Integer.MAX_VALUE, ""),
            false)
        .clear();
  }

  private static WriterLease with(
      WriterLease l, long epoch, String holder, long leaseMillis, long expires, long upto) {
    return new WriterLease(
        l.streamId(), l.partition(), l.source(), epoch, holder, leaseMillis, expires, upto);
  }

  private static String text(long streamId, int partition, String source) {
    return " streamId=" + streamId + " partition=" + partition + " source=" + source;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  private NavigableMap<WriterKey, WriterLease> of(long streamId, int partition) {
    return leases.subMap(
        new WriterKey(streamId, partition, ""),
        true,
        new WriterKey(streamId, partition + 1, ""),
        false);
  }

  // ---- reads

  Optional<WriterLease> lease(long streamId, int partition, String source) {
    if (source == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(leases.get(new WriterKey(streamId, partition, source)));
  }

  List<WriterLease> leases(long streamId, int partition) {
    return new ArrayList<>(of(streamId, partition).values());
  }

  int size() {
    return leases.size();
  }

  /** No writer lease: nothing for a version 11 section to hold. */
  boolean isDefault() {
    return leases.isEmpty();
  }

  // ---- snapshot section (version 11, docs/formats/metastore-snapshot.md)

  /** The leases by key. */
  void write(BinaryWriter w) {
    w.i32(leases.size());
    for (WriterLease l : leases.values()) {
      WriterLeaseCodec.writeLease(w, l);
    }
  }

  /** Reads the section {@link #write} wrote; the catalog must be restored first. */
  void read(BinaryReader r) {
    int n = r.count("writers.count", WriterLeaseCodec.MIN_LEASE_BYTES);
    WriterKey prev = null;
    for (int i = 0; i < n; i++) {
      WriterLease l = WriterLeaseCodec.readLease(r, "writer");
      WriterKey key = new WriterKey(l.streamId(), l.partition(), l.source());
      if (prev != null && prev.compareTo(key) >= 0) {
        throw r.corrupt("writer", "writer leases not sorted or duplicate source=" + l.source());
      }
      if (catalog.partitionState(l.streamId(), l.partition()) == null) {
        throw r.corrupt(
            "writer.streamId",
            "writer lease of an unknown stream or partition streamId="
                + l.streamId()
                + " partition="
                + l.partition());
      }
      if (l.epoch() < 1 || l.sourceUpto() < WriterLease.NOTHING) {
        throw r.corrupt(
            "writer.epoch",
            "bad epoch or source position epoch=" + l.epoch() + " sourceUpto=" + l.sourceUpto());
      }
      leases.put(key, l);
      prev = key;
    }
  }
}
