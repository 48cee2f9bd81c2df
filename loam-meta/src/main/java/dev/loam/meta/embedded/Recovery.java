package dev.loam.meta.embedded;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the state of an embedded metastore directory (docs/design/metastore.md "Recovery"): the
 * newest snapshot, then every frame after it. A damaged frame at the end of the last log file is a
 * torn write that was never acknowledged (acks follow fsync) and is truncated; damage anywhere else
 * is corruption.
 */
final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  /** The most bytes of a damaged tail examined for later valid frames. */
  private static final int MAX_TAIL_SCAN_BYTES = 256 << 20;

  record Result(
      MetaStateMachine machine, MetaDisk.LogFile logFile, Path logPath, long snapshotIndex) {}

  /** Bytes read from a log file at a time during replay. */
  private static final int READ_WINDOW_BYTES = 1 << 20;

  private Recovery() {}

  static Result run(MetaDisk disk, Path dir, MetaSettings settings) throws IOException {
    for (Path tmp : LogFiles.tempFiles(disk, dir)) {
      // An interrupted snapshot write: never renamed, so never relied upon.
      disk.deleteIfExists(tmp);
    }
    MetaStateMachine machine;
    long snapshotIndex = 0;
    TreeMap<Long, Path> snapshots = LogFiles.snapshots(disk, dir);
    if (snapshots.isEmpty()) {
      machine = new MetaStateMachine(settings);
    } else {
      // Only the newest snapshot is used. A snapshot is renamed into place only after it was
      // fsynced, and the log it covers is deleted right after, so a damaged newest snapshot
      // cannot be replaced by an older one plus the log: it is reported, never skipped.
      Map.Entry<Long, Path> newest = snapshots.lastEntry();
      long snapshotBytes = disk.size(newest.getValue());
      if (snapshotBytes > Integer.MAX_VALUE) {
        throw new CorruptionException(
            "metastore snapshot too large bytes=" + snapshotBytes + " file=" + newest.getValue());
      }
      byte[] bytes = disk.read(newest.getValue(), 0, (int) snapshotBytes);
      try {
        machine = MetaStateMachine.restore(bytes, settings);
      } catch (CorruptionException e) {
        throw new CorruptionException(
            "metastore snapshot is damaged: " + e.getMessage() + " file=" + newest.getValue(), e);
      }
      if (machine.appliedIndex() != newest.getKey()) {
        throw new CorruptionException(
            "metastore snapshot index does not match its name index="
                + machine.appliedIndex()
                + " file="
                + newest.getValue());
      }
      snapshotIndex = newest.getKey();
    }

    TreeMap<Long, Path> logs = LogFiles.logs(disk, dir);
    List<Map.Entry<Long, Path>> files = new ArrayList<>(logs.entrySet());
    long expected = snapshotIndex + 1;
    Path lastPath = null;
    long lastValidLength = 0;
    for (int i = 0; i < files.size(); i++) {
      long first = files.get(i).getKey();
      Path file = files.get(i).getValue();
      boolean last = i == files.size() - 1;
      if (!last && files.get(i + 1).getKey() <= expected) {
        // Wholly covered by the snapshot: left over from an interrupted clean-up.
        disk.deleteIfExists(file);
        continue;
      }
      if (first > expected) {
        throw new CorruptionException(
            "metastore log has a gap expectedIndex=" + expected + " file=" + file);
      }
      long[] scan = replayFile(disk, file, first, last, machine, expected);
      expected = scan[0];
      lastPath = file;
      lastValidLength = scan[1];
    }

    MetaDisk.LogFile channel;
    if (lastPath == null) {
      lastPath = dir.resolve(LogFiles.logName(expected));
      channel = disk.open(lastPath, true);
      disk.syncDirectory(dir);
    } else {
      channel = disk.open(lastPath, false);
      if (channel.size() > lastValidLength) {
        LOG.warn(
            "truncating a torn tail of the metastore log file={} validBytes={} fileBytes={}",
            lastPath,
            lastValidLength,
            channel.size());
        channel.truncate(lastValidLength);
        channel.force();
      }
      channel.position(lastValidLength);
    }
    return new Result(machine, channel, lastPath, snapshotIndex);
  }

  /**
   * Replays one file's frames with an index at or after {@code expected}. Returns the next expected
   * index and the length of the valid prefix of the file.
   */
  private static long[] replayFile(
      MetaDisk disk,
      Path file,
      long firstIndex,
      boolean lastFile,
      MetaStateMachine machine,
      long expected)
      throws IOException {
    Window ch = new Window(disk, file);
    long size = ch.size;
    long pos = 0;
    long frameIndex = firstIndex;
    ByteBuffer header = ByteBuffer.allocate(LogFiles.FRAME_HEADER_BYTES);
    while (pos < size) {
      String damage = null;
      byte[] payload = null;
      long index = -1;
      if (size - pos < LogFiles.FRAME_HEADER_BYTES) {
        damage = "incomplete frame header";
      } else {
        header.clear();
        header.put(ch.read(pos, LogFiles.FRAME_HEADER_BYTES)).flip();
        int len = header.getInt(0);
        int crc = header.getInt(4);
        index = header.getLong(8);
        if (len < 0 || len > LogFiles.MAX_FRAME_PAYLOAD) {
          damage = "bad frame length=" + len;
        } else if (pos + LogFiles.FRAME_HEADER_BYTES + len > size) {
          damage = "incomplete frame length=" + len;
        } else {
          payload = ch.read(pos + LogFiles.FRAME_HEADER_BYTES, len);
          if (crc != LogFiles.frameCrc(index, payload, 0, len)) {
            damage = "frame checksum mismatch";
          }
        }
      }
      if (damage != null) {
        if (!lastFile) {
          throw new CorruptionException(
              "metastore log frame damaged in a sealed file: "
                  + damage
                  + " file="
                  + file
                  + " position="
                  + pos);
        }
        if (size - pos > MAX_TAIL_SCAN_BYTES
            || LogFiles.validFrameAfter(ch.read(pos, (int) (size - pos)), 1, frameIndex)) {
          throw new CorruptionException(
              "metastore log frame damaged before valid frames: "
                  + damage
                  + " file="
                  + file
                  + " position="
                  + pos
                  + " index="
                  + frameIndex);
        }
        return new long[] {expected, pos}; // a torn tail: never acknowledged
      }
      // A frame with a good checksum must be the next one; anything else is not a torn write.
      if (index != frameIndex) {
        throw new CorruptionException(
            "metastore log frame out of sequence index="
                + index
                + " expectedIndex="
                + frameIndex
                + " file="
                + file
                + " position="
                + pos);
      }
      if (index >= expected) {
        if (index != expected) {
          throw new CorruptionException(
              "metastore log has a gap index=" + index + " expectedIndex=" + expected);
        }
        Command c;
        try {
          c = CommandCodec.decode(payload);
        } catch (CorruptionException e) {
          throw new CorruptionException(e.getMessage() + " file=" + file + " index=" + index, e);
        }
        machine.apply(index, c);
        expected = index + 1;
      }
      frameIndex++;
      pos += LogFiles.FRAME_HEADER_BYTES + payload.length;
    }
    return new long[] {expected, pos};
  }

  /** Sequential reads of one file through a buffer of {@link #READ_WINDOW_BYTES}. */
  private static final class Window {
    private final MetaDisk disk;
    private final Path file;
    final long size;
    private byte[] buf = new byte[0];
    private long bufStart;

    Window(MetaDisk disk, Path file) throws IOException {
      this.disk = disk;
      this.file = file;
      this.size = disk.size(file);
    }

    byte[] read(long position, int length) throws IOException {
      if (position < bufStart || position + length > bufStart + buf.length) {
        int want = (int) Math.min(Math.max(length, READ_WINDOW_BYTES), size - position);
        if (want < length) {
          throw new CorruptionException(
              "unexpected end of file position=" + position + " file=" + file);
        }
        buf = disk.read(file, position, want);
        bufStart = position;
      }
      int from = (int) (position - bufStart);
      return Arrays.copyOfRange(buf, from, from + length);
    }
  }
}
