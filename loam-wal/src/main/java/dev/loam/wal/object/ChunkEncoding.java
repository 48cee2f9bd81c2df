package dev.loam.wal.object;

/**
 * How a WAL chunk's bytes are encoded (stream-engine.txt §5). The code is stored in the chunk index
 * and never changes meaning.
 */
public enum ChunkEncoding {
  /** Kafka RecordBatch v2 batches back to back (docs/formats/record-batch-v2.md). */
  KAFKA(0),
  /** Reserved for Arrow IPC; stored and CRC-checked as opaque bytes, not interpreted yet. */
  ARROW(1);

  private final int code;

  ChunkEncoding(int code) {
    this.code = code;
  }

  /** The one-byte code stored in index entries. */
  public int code() {
    return code;
  }

  /** The encoding with this code, or null if unknown (callers decide which error that is). */
  static ChunkEncoding fromCodeOrNull(int code) {
    for (ChunkEncoding e : values()) {
      if (e.code == code) {
        return e;
      }
    }
    return null;
  }
}
