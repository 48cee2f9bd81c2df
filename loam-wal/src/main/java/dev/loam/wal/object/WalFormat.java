package dev.loam.wal.object;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Layout constants of WAL object formats v1 and v2 (docs/formats/wal-object-v1.md,
 * docs/formats/wal-object-v2.md).
 */
final class WalFormat {
  private WalFormat() {}

  static final int VERSION = 1;

  /** Version of objects that hold at least one sealed chunk. */
  static final int VERSION_SEALED = 2;

  /** Index entry flag (v2): the chunk is a sealed chunk. */
  static final int ENTRY_FLAG_SEALED = 0x01;

  static final int HEADER_MAGIC = 0x4C57414C; // "LWAL"
  static final int FOOTER_MAGIC = 0x4C574146; // "LWAF"

  // Header, chained offsets.
  static final int H_MAGIC = 0;
  static final int H_VERSION = H_MAGIC + 4;
  static final int H_CLASS = H_VERSION + 2;
  static final int H_FLAGS = H_CLASS + 1;
  static final int H_ULID = H_FLAGS + 1;
  static final int H_NODE_ID_LEN = H_ULID + 16;
  static final int H_NODE_ID = H_NODE_ID_LEN + 2;

  /** Header bytes besides the node id: fixed part plus the trailing CRC. */
  static final int HEADER_FIXED = H_NODE_ID + 4;

  // Index preamble, chained offsets (relative to index_offset).
  static final int I_CLASS = 0;
  static final int I_FLAGS = I_CLASS + 1;
  static final int I_NODE_ID_LEN = I_FLAGS + 1;
  static final int I_ULID = I_NODE_ID_LEN + 2;
  static final int I_NODE_ID = I_ULID + 16;

  /** Index bytes besides node id and entries: preamble plus the u32 count. */
  static final int INDEX_FIXED = I_NODE_ID + 4;

  // Index entry, relative to the entry start.
  static final int E_STREAM_ID = 0;
  static final int E_PARTITION = E_STREAM_ID + 8;
  static final int E_ENCODING = E_PARTITION + 4;
  static final int E_FLAGS = E_ENCODING + 1;
  static final int E_RESERVED = E_FLAGS + 1;
  static final int E_OFFSET = E_RESERVED + 2;
  static final int E_LENGTH = E_OFFSET + 8;
  static final int E_CRC = E_LENGTH + 4;
  static final int ENTRY_SIZE = E_CRC + 4;

  // Footer, relative to the footer start.
  static final int F_INDEX_OFFSET = 0;
  static final int F_INDEX_LENGTH = F_INDEX_OFFSET + 8;
  static final int F_INDEX_CRC = F_INDEX_LENGTH + 4;
  static final int F_VERSION = F_INDEX_CRC + 4;
  static final int F_RESERVED = F_VERSION + 2;
  static final int F_FOOTER_CRC = F_RESERVED + 2;
  static final int F_MAGIC = F_FOOTER_CRC + 4;
  static final int FOOTER_SIZE = F_MAGIC + 4;

  // Sealed chunk header (v2), relative to the chunk start.
  static final int S_ALGORITHM = 0;
  static final int S_RESERVED = S_ALGORITHM + 1;
  static final int S_KEY_ID_LEN = S_RESERVED + 1;
  static final int S_KEY_ID = S_KEY_ID_LEN + 2;

  static final int MAX_KEY_ID_BYTES = 255;
  static final int MAX_NODE_ID_BYTES = 255;
  static final int MAX_CHUNKS = 1 << 20;

  /** Built objects live in one byte[]. */
  static final long MAX_OBJECT_SIZE = Integer.MAX_VALUE - 16;

  static int headerSize(int nodeIdBytes) {
    return HEADER_FIXED + nodeIdBytes;
  }

  static long indexSize(int nodeIdBytes, long chunks) {
    return INDEX_FIXED + nodeIdBytes + chunks * ENTRY_SIZE;
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  static int crc(ByteBuffer b) {
    CRC32C c = new CRC32C();
    c.update(b.duplicate());
    return (int) c.getValue();
  }

  static String hex(int v) {
    return String.format("0x%08x", v);
  }
}
