package dev.loam.core.write;

import dev.loam.core.write.WalBuffer.Slot;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.ulid.Ulid;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One buffer laid out as a WAL object: the object's bytes, the CommitWal chunks that describe them
 * (one per chunk of the object, in the object's chunk order) and, per chunk and batch, the buffer
 * slot that submitted the batch, so the sequencer's per-batch verdicts find their appends.
 *
 * @param object the built object
 * @param chunks the commit's chunks, index {@code c} describing the object's chunk {@code c}
 * @param slotOf {@code slotOf[c][j]} is the buffer slot of batch {@code j} of chunk {@code c}
 */
record WalObjectPlan(WalObject object, ChunkCommit[] chunks, int[][] slotOf) {

  /** Builds the object of {@code buffer} named by {@code ulid}. */
  static WalObjectPlan build(
      String nodeId, Ulid ulid, DurabilityClass durabilityClass, List<Slot> slots) {
    WalObjectBuilder builder = new WalObjectBuilder(nodeId, ulid, durabilityClass);
    int[] tickets = new int[slots.size()];
    for (int i = 0; i < tickets.length; i++) {
      PendingBatch p = slots.get(i).batch();
      tickets[i] = builder.add(p.streamId(), p.partition(), ChunkEncoding.KAFKA, p.bytes());
    }
    WalObject object = builder.build();
    // Group the slots by chunk in the object's own chunk order; within a chunk, slots keep
    // insertion order, which is also their byte order.
    Map<Long, List<Integer>> byChunk = new HashMap<>();
    for (int i = 0; i < tickets.length; i++) {
      PendingBatch p = slots.get(i).batch();
      byChunk.computeIfAbsent(chunkKey(p.streamId(), p.partition()), k -> new ArrayList<>()).add(i);
    }
    List<ChunkIndexEntry> index = object.chunks();
    ChunkCommit[] chunks = new ChunkCommit[index.size()];
    int[][] slotOf = new int[index.size()][];
    for (int c = 0; c < index.size(); c++) {
      ChunkIndexEntry e = index.get(c);
      List<Integer> members = byChunk.get(chunkKey(e.streamId(), e.partition()));
      List<BatchCommit> batches = new ArrayList<>(members.size());
      slotOf[c] = new int[members.size()];
      for (int j = 0; j < members.size(); j++) {
        int si = members.get(j);
        slotOf[c][j] = si;
        PendingBatch p = slots.get(si).batch();
        batches.add(
            new BatchCommit(
                object.payloadOffset(tickets[si]),
                p.bytes().length,
                p.recordCount(),
                p.maxTimestamp(),
                p.producerId(),
                p.producerEpoch(),
                p.baseSequence()));
      }
      chunks[c] = new ChunkCommit(e.streamId(), e.partition(), batches);
    }
    return new WalObjectPlan(object, chunks, slotOf);
  }

  private static long chunkKey(long streamId, int partition) {
    // Stream ids stay far below 2^40 and partitions below 2^20.
    return (streamId << 20) | partition;
  }
}
