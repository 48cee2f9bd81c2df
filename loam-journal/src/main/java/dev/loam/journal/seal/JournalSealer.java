package dev.loam.journal.seal;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.ratis.JournalServer;
import dev.loam.journal.state.UnsealedRange;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Seals a journal's committed ranges into segment objects (docs/design/quorum.md "Sealing"), driven
 * from outside: each {@link #poll()} seals, on the journal's leader only, at most one range per
 * partition whose unsealed tail holds {@code minSealBytes} or more. A range is written as one
 * segment (docs/formats/segment-v1.md: the batches verbatim, their assigned offsets in place) with
 * the sink's create-if-absent, then a {@code SEAL} entry moves the partition's sealed offset, which
 * drops the range from every replica's tail; a later snapshot lets Ratis purge the log behind it.
 *
 * <p>A seal proposed by a leader that was deposed, or raced by another sealer, is refused by the
 * state machine ({@code BAD_SEAL}: it no longer starts at the sealed offset) and its segment is an
 * orphan, deleted by the store's orphan collection like any segment whose commit was refused.
 *
 * <p>Not thread-safe: one driver calls {@link #poll()}, waiting for each pass before the next.
 */
public final class JournalSealer {
  /**
   * Names a segment: the node runtime puts the cluster id and a fresh ULID in it
   * (docs/formats/bucket-layout.md), so two attempts at one range never share a key.
   */
  @FunctionalInterface
  public interface KeyNamer {
    String key(long streamId, int partition, long baseOffset);
  }

  private final JournalServer server;
  private final String journal;
  private final SegmentSink sink;
  private final KeyNamer keys;
  private final long minSealBytes;
  private final long maxSegmentBytes;

  /**
   * @param minSealBytes a partition's tail is sealed once it holds this many bytes
   * @param maxSegmentBytes a segment holds about this many batch bytes at most (at least one batch)
   * @throws LoamException INVALID if a bound is not positive or min exceeds max
   */
  public JournalSealer(
      JournalServer server,
      String journal,
      SegmentSink sink,
      KeyNamer keys,
      long minSealBytes,
      long maxSegmentBytes) {
    this.server = Objects.requireNonNull(server, "server");
    this.journal = Objects.requireNonNull(journal, "journal");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.keys = Objects.requireNonNull(keys, "keys");
    if (minSealBytes <= 0 || maxSegmentBytes < minSealBytes) {
      throw new LoamException(
          Kind.INVALID,
          "seal bounds need 0 < minSealBytes <= maxSegmentBytes minSealBytes="
              + minSealBytes
              + " maxSegmentBytes="
              + maxSegmentBytes);
    }
    this.minSealBytes = minSealBytes;
    this.maxSegmentBytes = maxSegmentBytes;
  }

  /**
   * One pass. Completes with the result of each SEAL proposed (none on a follower, or when no tail
   * is large enough); fails if a segment write or a proposal failed (the next pass retries the
   * range under a new key).
   */
  public CompletableFuture<List<JournalResult>> poll() {
    if (!server.isLeader(journal)) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<UnsealedRange> ranges =
        server.query(journal, s -> s.unsealed(minSealBytes, maxSegmentBytes));
    List<CompletableFuture<JournalResult>> seals = new ArrayList<>();
    for (UnsealedRange r : ranges) {
      seals.add(seal(r));
    }
    return CompletableFuture.allOf(seals.toArray(CompletableFuture[]::new))
        .thenApply(v -> seals.stream().map(CompletableFuture::join).toList());
  }

  private CompletableFuture<JournalResult> seal(UnsealedRange r) {
    try {
      return write(r);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<JournalResult> write(UnsealedRange r) {
    SegmentBuilder b = new SegmentBuilder(r.streamId(), r.partition(), r.baseOffset());
    for (byte[] batch : r.batches()) {
      b.addEntry(b.nextOffset(), batch);
    }
    Segment segment = b.build();
    String key = keys.key(r.streamId(), r.partition(), r.baseOffset());
    SegmentPointer pointer = new SegmentPointer(r.baseOffset(), segment.endOffset(), key);
    return sink.putIfAbsent(key, segment.bytes())
        .thenCompose(
            v ->
                server.propose(
                    journal, new JournalEntry.Seal(r.streamId(), r.partition(), pointer)));
  }
}
