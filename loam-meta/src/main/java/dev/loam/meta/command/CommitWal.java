package dev.loam.meta.command;

import java.util.List;

/**
 * Commits one WAL object (stream-engine.txt §3 step 3): the sequencer assigns each accepted batch
 * its offsets, checks producer idempotence, and appends offset-index entries. A retry with the same
 * {@code objectKey} returns the first commit's result (dedupe by object path); a commit whose
 * {@code objectTimeMillis} (the object's ULID time) is more than the stale-commit window older than
 * the metastore clock is refused with STALE_COMMIT.
 *
 * @param objectKey the WAL object's key, {@code wal/<class>/<node>/<ulid>.wal}
 * @param objectTimeMillis the object's creation time (its ULID time)
 * @param objectSize the object's size in bytes
 * @param chunks one entry per (stream, partition) chunk, in object order
 */
public record CommitWal(
    Origin origin,
    String objectKey,
    long objectTimeMillis,
    long objectSize,
    List<ChunkCommit> chunks)
    implements Command {
  public CommitWal {
    chunks = List.copyOf(chunks);
  }

  /** The batches of one partition inside the object, in byte order. */
  public record ChunkCommit(long streamId, int partition, List<BatchCommit> batches) {
    public ChunkCommit {
      batches = List.copyOf(batches);
    }
  }

  /**
   * One Kafka RecordBatch v2 inside the object: where it lies, how many records it holds, its
   * producer fields ({@code producerId == -1}: not idempotent, never deduplicated), and its fence
   * when it is a fenced append (null otherwise).
   */
  public record BatchCommit(
      long byteOffset,
      int byteLength,
      int recordCount,
      long maxTimestamp,
      long producerId,
      short producerEpoch,
      int baseSequence,
      Fence fence) {
    /** A batch that is not a fenced append. */
    public BatchCommit(
        long byteOffset,
        int byteLength,
        int recordCount,
        long maxTimestamp,
        long producerId,
        short producerEpoch,
        int baseSequence) {
      this(
          byteOffset,
          byteLength,
          recordCount,
          maxTimestamp,
          producerId,
          producerEpoch,
          baseSequence,
          null);
    }
  }

  /**
   * The fence of a fenced append's batch (docs/design/changelog.md "The append"): appended only if
   * {@code leaseEpoch} is the live writer lease of {@code source} on the chunk's partition and
   * {@code sourceFrom} is that source's {@code sourceUpto + 1}.
   *
   * @param sourceFrom the first source position the batch covers, {@code >= 0}
   * @param sourceTo the last one, {@code >= sourceFrom}
   */
  public record Fence(String source, long leaseEpoch, long sourceFrom, long sourceTo) {
    public Fence {
      java.util.Objects.requireNonNull(source, "source");
    }
  }

  /** Whether any batch of this commit is a fenced append (then it is encoded as tag 42). */
  public boolean fenced() {
    for (ChunkCommit c : chunks) {
      for (BatchCommit b : c.batches()) {
        if (b.fence() != null) {
          return true;
        }
      }
    }
    return false;
  }
}
