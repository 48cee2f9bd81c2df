package dev.loam.core.write;

import dev.loam.core.write.WalBuffer.Slot;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.SealedChunk;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.ulid.Ulid;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

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

  /**
   * Builds the object of {@code slots} named by {@code ulid}, stored under {@code objectKey}. The
   * chunk of a partition whose batches carry a key is sealed (docs/formats/wal-object-v2.md) under
   * the newest key any of them carries (a rotation during the buffer's life seals the whole chunk
   * under the new key; a namespace given its first key seals the batches already buffered too),
   * with data keys and nonces from {@code random}.
   */
  static WalObjectPlan build(
      String nodeId,
      Ulid ulid,
      DurabilityClass durabilityClass,
      String objectKey,
      RandomGenerator random,
      List<Slot> slots) {
    Map<Long, KeyEncryptionKey> keyOf = new HashMap<>();
    for (Slot s : slots) {
      PendingBatch p = s.batch();
      if (p.sealWith() != null) {
        keyOf.merge(
            chunkKey(p.streamId(), p.partition()),
            p.sealWith(),
            (a, b) -> a.id().compareTo(b.id()) >= 0 ? a : b);
      }
    }
    WalObjectBuilder builder =
        keyOf.isEmpty()
            ? new WalObjectBuilder(nodeId, ulid, durabilityClass)
            : new WalObjectBuilder(nodeId, ulid, durabilityClass, objectKey, random);
    int[] tickets = new int[slots.size()];
    for (int i = 0; i < tickets.length; i++) {
      PendingBatch p = slots.get(i).batch();
      KeyEncryptionKey kek = keyOf.get(chunkKey(p.streamId(), p.partition()));
      tickets[i] = builder.add(p.streamId(), p.partition(), p.encoding(), p.bytes(), kek);
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
      // A sealed chunk's batch is indexed at its ciphertext's position in the object: GCM keeps
      // lengths, so the batch's bytes there are a real, non-overlapping range of the object, and
      // a reader that finds the range inside a sealed chunk reads and opens the whole chunk.
      long cipherStart = 0;
      if (e.sealed()) {
        cipherStart =
            e.offset()
                + SealedChunk.parseHeader(
                        object.chunk(c),
                        new SealedChunk.Binding(objectKey, e.streamId(), e.partition(), c))
                    .headerLength();
      }
      List<BatchCommit> batches = new ArrayList<>(members.size());
      slotOf[c] = new int[members.size()];
      for (int j = 0; j < members.size(); j++) {
        int si = members.get(j);
        slotOf[c][j] = si;
        PendingBatch p = slots.get(si).batch();
        long byteOffset =
            e.sealed()
                ? cipherStart + object.plaintextOffset(tickets[si])
                : object.payloadOffset(tickets[si]);
        batches.add(
            new BatchCommit(
                byteOffset,
                p.bytes().length,
                p.recordCount(),
                p.maxTimestamp(),
                p.producerId(),
                p.producerEpoch(),
                p.baseSequence(),
                p.fence()));
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
