package dev.loam.meta.embedded;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Every file-system operation the embedded metastore performs, and nothing else. Production uses
 * {@link LocalDisk}; crash-consistency tests substitute a file layer that loses what was never made
 * durable, so that recovery is checked against every state a power loss can leave behind
 * (docs/design/metastore.md "Crash consistency").
 *
 * <p>Durability contract, the one POSIX file systems give: bytes written to a file are durable once
 * {@link LogFile#force()} (or {@link #writeDurably}) returned; a creation, rename or deletion in a
 * directory is durable once {@link #syncDirectory} returned, and directory operations become
 * durable in the order they were made.
 */
interface MetaDisk {
  /** Creates {@code dir} and its parents if absent. */
  void createDirectories(Path dir) throws IOException;

  /**
   * Takes the exclusive lock of {@code lockFile} (creating it), or returns null when another
   * instance holds it. Closing the handle releases it.
   */
  Closeable tryLock(Path lockFile) throws IOException;

  /** The names of the regular files in {@code dir}. */
  List<String> list(Path dir) throws IOException;

  /** The size of {@code file} in bytes. */
  long size(Path file) throws IOException;

  /**
   * Exactly {@code length} bytes of {@code file} from {@code position}.
   *
   * @throws dev.loam.error.CorruptionException if the file ends first
   */
  byte[] read(Path file, long position, int length) throws IOException;

  /**
   * Opens {@code file} for writing at its start ({@link LogFile#position} moves it); with {@code
   * createNew} the file must not exist yet.
   */
  LogFile open(Path file, boolean createNew) throws IOException;

  /** Creates or replaces {@code file} with {@code bytes} and forces them. */
  void writeDurably(Path file, byte[] bytes) throws IOException;

  /** Renames {@code from} to {@code to} atomically, replacing {@code to}. */
  void moveAtomically(Path from, Path to) throws IOException;

  /** Deletes {@code file} if it exists. */
  void deleteIfExists(Path file) throws IOException;

  /** Makes the creations, renames and deletions made so far in {@code dir} durable. */
  void syncDirectory(Path dir) throws IOException;

  /** A file open for writing. Used by one thread at a time. */
  interface LogFile extends Closeable {
    /** The file's current size. */
    long size() throws IOException;

    /** Moves the write position. */
    void position(long position) throws IOException;

    /** Writes all of {@code bytes} at the write position and advances it. */
    void write(ByteBuffer bytes) throws IOException;

    /** Cuts the file to {@code size} bytes. */
    void truncate(long size) throws IOException;

    /** Makes every byte written so far durable (fdatasync). */
    void force() throws IOException;
  }
}
