package dev.loam.meta.embedded;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * File names, frame layout and small I/O helpers of the embedded metastore's directory
 * (docs/design/metastore.md "On-disk layout").
 */
final class LogFiles {
  /** Frame header: u32 payload length, u32 crc32c over index and payload, i64 index. */
  static final int FRAME_HEADER_BYTES = 16;

  /** The largest payload a frame may carry; a larger length field is treated as damage. */
  static final int MAX_FRAME_PAYLOAD = 64 << 20;

  static final String LOCK_FILE = "LOCK";
  private static final Pattern LOG_NAME = Pattern.compile("log-(\\d{20})\\.log");
  private static final Pattern SNAPSHOT_NAME = Pattern.compile("snapshot-(\\d{20})\\.snap");
  static final String TMP_SUFFIX = ".tmp";

  private LogFiles() {}

  static String logName(long firstIndex) {
    return String.format("log-%020d.log", firstIndex);
  }

  static String snapshotName(long index) {
    return String.format("snapshot-%020d.snap", index);
  }

  /** Log files by first index. */
  static TreeMap<Long, Path> logs(MetaDisk disk, Path dir) throws IOException {
    return list(disk, dir, LOG_NAME);
  }

  /** Snapshot files by index. */
  static TreeMap<Long, Path> snapshots(MetaDisk disk, Path dir) throws IOException {
    return list(disk, dir, SNAPSHOT_NAME);
  }

  private static TreeMap<Long, Path> list(MetaDisk disk, Path dir, Pattern p) throws IOException {
    TreeMap<Long, Path> out = new TreeMap<>();
    for (String name : disk.list(dir)) {
      Matcher m = p.matcher(name);
      if (m.matches()) {
        out.put(Long.parseLong(m.group(1)), dir.resolve(name));
      }
    }
    return out;
  }

  /** Leftover temporary files of an interrupted snapshot write. */
  static List<Path> tempFiles(MetaDisk disk, Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    for (String name : disk.list(dir)) {
      if (name.endsWith(TMP_SUFFIX)) {
        out.add(dir.resolve(name));
      }
    }
    return out;
  }

  static int frameCrc(long index, byte[] payload, int payloadOffset, int payloadLength) {
    CRC32C crc = new CRC32C();
    ByteBuffer idx = ByteBuffer.allocate(8).putLong(0, index);
    crc.update(idx);
    crc.update(payload, payloadOffset, payloadLength);
    return (int) crc.getValue();
  }

  /** Appends one frame to {@code out}. */
  static void writeFrame(ByteBuffer out, long index, byte[] payload) {
    out.putInt(payload.length);
    out.putInt(frameCrc(index, payload, 0, payload.length));
    out.putLong(index);
    out.put(payload);
  }

  /**
   * Whether {@code bytes[from..]} holds, at any position, a frame with a good checksum and an index
   * in {@code [minIndex, minIndex + 1_000_000)}: the test that tells a torn tail (nothing valid
   * after the damage) from corruption in the middle of the log.
   */
  static boolean validFrameAfter(byte[] bytes, int from, long minIndex) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    for (int q = from; q + FRAME_HEADER_BYTES <= bytes.length; q++) {
      int len = b.getInt(q);
      long idx = b.getLong(q + 8);
      if (len < 0
          || len > MAX_FRAME_PAYLOAD
          || (long) q + FRAME_HEADER_BYTES + len > bytes.length
          || idx < minIndex
          || idx >= minIndex + 1_000_000) {
        continue;
      }
      if (b.getInt(q + 4) == frameCrc(idx, bytes, q + FRAME_HEADER_BYTES, len)) {
        return true;
      }
    }
    return false;
  }
}
