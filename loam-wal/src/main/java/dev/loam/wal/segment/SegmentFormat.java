package dev.loam.wal.segment;

import java.util.zip.CRC32C;

/** Layout constants of segment formats v1 and v2 (docs/formats/segment-v1.md, segment-v2.md). */
final class SegmentFormat {
  private SegmentFormat() {}

  static final int VERSION = 1;

  /** Sealed segments (segment-v2.md). */
  static final int VERSION_SEALED = 2;

  static final int ENCODING_KAFKA = 0;

  /** Arrow batch frames (arrow-batch-v1.md); the index region adds a column index. */
  static final int ENCODING_ARROW = 1;

  /** ASCII {@code LACI}: the column index after an arrow segment's batch index. */
  static final int COLUMN_INDEX_MAGIC = 0x4C414349;

  /** ASCII {@code LARB}: an arrow batch frame's magic, at frame offset 12. */
  static final int FRAME_MAGIC = 0x4C415242;

  /** Header flag bit 0: batches were re-encoded by the compactor and are dense by offset span. */
  static final int FLAG_COMPACTED = 1;

  static final int HEADER_MAGIC = 0x4C534547; // "LSEG"
  static final int FOOTER_MAGIC = 0x4C534746; // "LSGF"

  // Header, chained offsets.
  static final int H_MAGIC = 0;
  static final int H_VERSION = H_MAGIC + 4;
  static final int H_ENCODING = H_VERSION + 2;
  static final int H_FLAGS = H_ENCODING + 1;
  static final int H_STREAM_ID = H_FLAGS + 1;
  static final int H_PARTITION = H_STREAM_ID + 8;
  static final int H_BASE_OFFSET = H_PARTITION + 4;
  static final int H_CRC = H_BASE_OFFSET + 8;
  static final int HEADER_SIZE = H_CRC + 4;

  // Index entry, relative to the entry start.
  static final int E_BASE_OFFSET = 0;
  static final int E_RECORD_COUNT = E_BASE_OFFSET + 8;
  static final int E_MAX_TIMESTAMP = E_RECORD_COUNT + 4;
  static final int E_POSITION = E_MAX_TIMESTAMP + 8;
  static final int E_LENGTH = E_POSITION + 8;
  static final int ENTRY_SIZE = E_LENGTH + 4;

  /** The index's u32 count before its entries. */
  static final int INDEX_FIXED = 4;

  // Footer, relative to the footer start.
  static final int F_INDEX_OFFSET = 0;
  static final int F_INDEX_LENGTH = F_INDEX_OFFSET + 8;
  static final int F_INDEX_CRC = F_INDEX_LENGTH + 4;
  static final int F_DATA_CRC = F_INDEX_CRC + 4;
  static final int F_VERSION = F_DATA_CRC + 4;
  static final int F_RESERVED = F_VERSION + 2;
  static final int F_FOOTER_CRC = F_RESERVED + 2;
  static final int F_MAGIC = F_FOOTER_CRC + 4;
  static final int FOOTER_SIZE = F_MAGIC + 4;

  static final int MAX_BATCHES = 1 << 24;

  /** Built segments live in one byte[]. */
  static final long MAX_OBJECT_SIZE = Integer.MAX_VALUE - 16;

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  static String hex(int v) {
    return String.format("0x%08x", v);
  }
}
