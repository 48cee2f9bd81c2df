package dev.loam.meta.embedded;

import dev.loam.error.CorruptionException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** {@link MetaDisk} on the local file system through {@link FileChannel}. */
final class LocalDisk implements MetaDisk {
  static final LocalDisk INSTANCE = new LocalDisk();

  private LocalDisk() {}

  @Override
  public void createDirectories(Path dir) throws IOException {
    Files.createDirectories(dir);
  }

  @Override
  public Closeable tryLock(Path lockFile) throws IOException {
    FileChannel ch =
        FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by another instance in this JVM
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    if (lock == null) {
      ch.close();
      return null;
    }
    FileLock held = lock;
    return () -> {
      try {
        held.release();
      } finally {
        ch.close();
      }
    };
  }

  @Override
  public List<String> list(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path f : ds) {
        out.add(f.getFileName().toString());
      }
    }
    return out;
  }

  @Override
  public long size(Path file) throws IOException {
    return Files.size(file);
  }

  @Override
  public byte[] read(Path file, long position, int length) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buf = ByteBuffer.allocate(length);
      long pos = position;
      while (buf.hasRemaining()) {
        int n = ch.read(buf, pos);
        if (n < 0) {
          throw new CorruptionException("unexpected end of file position=" + pos + " file=" + file);
        }
        pos += n;
      }
      return buf.array();
    }
  }

  @Override
  public LogFile open(Path file, boolean createNew) throws IOException {
    FileChannel ch =
        createNew
            ? FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
            : FileChannel.open(file, StandardOpenOption.WRITE);
    return new LogFile() {
      @Override
      public long size() throws IOException {
        return ch.size();
      }

      @Override
      public void position(long position) throws IOException {
        ch.position(position);
      }

      @Override
      public void write(ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
          ch.write(bytes);
        }
      }

      @Override
      public void truncate(long size) throws IOException {
        ch.truncate(size);
      }

      @Override
      public void force() throws IOException {
        ch.force(false);
      }

      @Override
      public void close() throws IOException {
        ch.close();
      }
    };
  }

  @Override
  public void writeDurably(Path file, byte[] bytes) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
  }

  @Override
  public void moveAtomically(Path from, Path to) throws IOException {
    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public void deleteIfExists(Path file) throws IOException {
    Files.deleteIfExists(file);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
