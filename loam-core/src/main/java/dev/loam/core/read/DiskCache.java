package dev.loam.core.read;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local disk tier of the read path (stream-engine.txt §6 step 2, "NVMe cache"): byte ranges of
 * objects fetched from the store, kept in one directory, bounded in bytes, evicting the least
 * recently used range first.
 *
 * <p>Safe across restarts and never wrong: one file per (object key, byte offset, length), named by
 * a SHA-256 of the three, holding a header with the key, the range and a CRC32C over header and
 * bytes. A file whose header names another range or whose CRC fails is deleted and reads as a miss.
 * Files are written to a temporary name and renamed into place, so a crash leaves either nothing or
 * a whole file (stray temporary files are deleted at start). On start the index is rebuilt by
 * scanning the directory (headers only, at most {@code maxFiles} files, oldest modification first
 * evicted if over the bound); until that scan ends every lookup is a miss. Objects are immutable,
 * so a cached range never goes stale; deleting an object drops its ranges ({@link #invalidate}).
 *
 * <p>All file I/O runs on the injected executor, never on the caller's thread. The directory must
 * belong to this node alone.
 */
public final class DiskCache {
  private static final Logger log = LoggerFactory.getLogger(DiskCache.class);

  static final int MAGIC = 0x4C44_4331; // "LDC1"
  static final String SUFFIX = ".ldc";
  static final String TMP_SUFFIX = ".tmp";
  private static final int MAX_KEY_BYTES = 4096;

  private final Path dir;
  private final long capacityBytes;
  private final int maxFiles;
  private final Executor io;
  private final ReadCounters stats;
  // Access-ordered: iteration starts at the least recently used range.
  private final LinkedHashMap<Range, Entry> index = new LinkedHashMap<>(256, 0.75f, true);
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final AtomicLong tmpSeq = new AtomicLong();
  private long bytes;
  private volatile boolean closed;

  record Range(String objectKey, long offset, int length) {}

  /** One indexed file; identity tells a re-put apart from an evicted predecessor. */
  private static final class Entry {
    final long fileBytes;
    volatile boolean written;

    Entry(long fileBytes, boolean written) {
      this.fileBytes = fileBytes;
      this.written = written;
    }
  }

  public DiskCache(Path dir, long capacityBytes, int maxFiles, Executor io, ReadCounters stats) {
    this.dir = dir;
    this.capacityBytes = capacityBytes;
    this.maxFiles = maxFiles;
    this.io = io;
    this.stats = stats;
    stats.diskGauges(this::bytes, this::entries);
  }

  /** Scans the directory on the I/O executor; lookups miss until the returned future completes. */
  public CompletableFuture<Void> start() {
    try {
      io.execute(
          () -> {
            try {
              scan();
            } catch (Exception e) {
              log.warn("disk cache scan failed, starting empty dir={}", dir, e);
            } finally {
              ready.complete(null);
            }
          });
    } catch (RuntimeException e) {
      ready.complete(null);
    }
    return ready;
  }

  CompletableFuture<Void> ready() {
    return ready;
  }

  /** The cached bytes of the range, or null (a miss) after an I/O step on the executor. */
  CompletableFuture<byte[]> get(String objectKey, long offset, int length) {
    Range r = new Range(objectKey, offset, length);
    Entry e;
    synchronized (this) {
      e = ready.isDone() && !closed ? index.get(r) : null;
    }
    if (e == null || !e.written) {
      stats.diskMiss();
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<byte[]> out = new CompletableFuture<>();
    try {
      io.execute(
          () -> {
            byte[] b = null;
            try {
              b = read(r);
            } catch (Exception x) {
              log.debug("disk cache read failed range={}", r, x);
            }
            if (b == null) {
              stats.diskMiss();
              drop(r, e);
            } else {
              stats.diskHit();
            }
            out.complete(b);
          });
    } catch (RuntimeException x) {
      stats.diskMiss();
      out.complete(null);
    }
    return out;
  }

  /**
   * Stores the range's bytes (best effort: failures only mean later misses). Completes when the
   * file is in place or the write was skipped; never fails.
   */
  public CompletableFuture<Void> put(String objectKey, long offset, byte[] data) {
    Range r = new Range(objectKey, offset, data.length);
    byte[] keyBytes = objectKey.getBytes(StandardCharsets.UTF_8);
    long fileBytes = headerBytes(keyBytes.length) + data.length;
    if (keyBytes.length > MAX_KEY_BYTES || fileBytes > capacityBytes) {
      return CompletableFuture.completedFuture(null);
    }
    Entry e = new Entry(fileBytes, false);
    List<Range> victims = new ArrayList<>();
    synchronized (this) {
      if (!ready.isDone() || closed || index.containsKey(r)) {
        return CompletableFuture.completedFuture(null);
      }
      index.put(r, e);
      bytes += fileBytes;
      evictLocked(victims, r);
    }
    CompletableFuture<Void> out = new CompletableFuture<>();
    try {
      io.execute(
          () -> {
            try {
              deleteFiles(victims);
              write(r, keyBytes, data, e);
            } catch (Exception x) {
              log.debug("disk cache write failed range={}", r, x);
              drop(r, e);
            } finally {
              out.complete(null);
            }
          });
    } catch (RuntimeException x) {
      // Executor gone (node stopping): unindex only; no file I/O on the caller's thread.
      unindex(r, e);
      out.complete(null);
    }
    return out;
  }

  /** Drops every cached range of these objects (they were deleted); best effort, asynchronous. */
  public void invalidate(Collection<String> objectKeys) {
    if (objectKeys.isEmpty()) {
      return;
    }
    Set<String> keys = new HashSet<>(objectKeys);
    List<Range> victims = new ArrayList<>();
    synchronized (this) {
      Iterator<Map.Entry<Range, Entry>> it = index.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<Range, Entry> me = it.next();
        if (keys.contains(me.getKey().objectKey())) {
          bytes -= me.getValue().fileBytes;
          victims.add(me.getKey());
          it.remove();
        }
      }
    }
    if (!victims.isEmpty()) {
      try {
        io.execute(() -> deleteFiles(victims));
      } catch (RuntimeException x) {
        // Best effort: the files are unindexed and are found by the next start's scan.
      }
    }
  }

  synchronized long bytes() {
    return bytes;
  }

  synchronized long entries() {
    return index.size();
  }

  /** Stops serving and storing; files stay for the next start. */
  public void close() {
    closed = true;
  }

  // ---------------------------------------------------------------- internals

  private void evictLocked(List<Range> victims, Range keep) {
    Iterator<Map.Entry<Range, Entry>> it = index.entrySet().iterator();
    while ((bytes > capacityBytes || index.size() > maxFiles) && it.hasNext()) {
      Map.Entry<Range, Entry> me = it.next();
      if (me.getKey().equals(keep)) {
        continue;
      }
      bytes -= me.getValue().fileBytes;
      victims.add(me.getKey());
      it.remove();
    }
    if (!victims.isEmpty()) {
      stats.diskEvictions(victims.size());
    }
  }

  private synchronized boolean unindex(Range r, Entry e) {
    boolean removed = index.remove(r, e);
    if (removed) {
      bytes -= e.fileBytes;
    }
    return removed;
  }

  /**
   * Removes {@code r} from the index if it still maps to {@code e}, and deletes its file; on the
   * I/O executor only.
   */
  private void drop(Range r, Entry e) {
    if (unindex(r, e)) {
      try {
        Files.deleteIfExists(file(r));
      } catch (IOException x) {
        // The next start's scan tries again.
      }
    }
  }

  private void deleteFiles(List<Range> victims) {
    for (Range v : victims) {
      synchronized (this) {
        if (index.containsKey(v)) {
          continue; // Put again since it was evicted: the file is the new entry's.
        }
      }
      try {
        Files.deleteIfExists(file(v));
      } catch (IOException x) {
        // Unindexed; the next start's scan finds it and accounts for it.
      }
    }
  }

  private void write(Range r, byte[] keyBytes, byte[] data, Entry e) throws IOException {
    Files.createDirectories(dir);
    Path target = file(r);
    Path tmp = dir.resolve(target.getFileName() + "." + tmpSeq.incrementAndGet() + TMP_SUFFIX);
    ByteBuffer header = ByteBuffer.allocate(headerBytes(keyBytes.length));
    header.putInt(MAGIC);
    header.putInt(0); // CRC, filled below
    header.putShort((short) keyBytes.length);
    header.put(keyBytes);
    header.putLong(r.offset());
    header.putInt(r.length());
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 8, header.capacity() - 8);
    crc.update(data);
    header.putInt(4, (int) crc.getValue());
    try {
      try (var ch =
          Files.newByteChannel(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        header.rewind();
        ByteBuffer body = ByteBuffer.wrap(data);
        while (header.hasRemaining()) {
          ch.write(header);
        }
        while (body.hasRemaining()) {
          ch.write(body);
        }
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException x) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    boolean kept;
    synchronized (this) {
      kept = index.get(r) == e;
      if (kept) {
        e.written = true;
      }
    }
    if (kept) {
      stats.diskWrite();
    } else {
      // Evicted or invalidated while being written.
      deleteFiles(List.of(r));
    }
  }

  /** The file's bytes if its header names exactly {@code r} and its CRC holds; else null. */
  private byte[] read(Range r) throws IOException {
    byte[] keyBytes = r.objectKey().getBytes(StandardCharsets.UTF_8);
    int hb = headerBytes(keyBytes.length);
    try (FileChannel ch = FileChannel.open(file(r), StandardOpenOption.READ)) {
      if (ch.size() != (long) hb + r.length()) {
        stats.diskCorruptFound();
        return null;
      }
      ByteBuffer head = ByteBuffer.allocate(hb);
      readFully(ch, head);
      head.flip();
      Header h = parseHeader(head, ch.size());
      if (h == null || !h.range().equals(r)) {
        stats.diskCorruptFound();
        return null;
      }
      byte[] out = new byte[r.length()];
      readFully(ch, ByteBuffer.wrap(out));
      CRC32C crc = new CRC32C();
      crc.update(head.array(), 8, hb - 8);
      crc.update(out);
      if ((int) crc.getValue() != h.crc()) {
        stats.diskCorruptFound();
        return null;
      }
      return out;
    } catch (NoSuchFileException x) {
      return null;
    }
  }

  private static void readFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        throw new IOException("disk cache file shorter than its size");
      }
    }
  }

  private record Header(Range range, int crc, int headerBytes) {}

  /** Parses a header from {@code b} (positioned at 0) of a file of {@code fileBytes}, or null. */
  private static Header parseHeader(ByteBuffer b, long fileBytes) {
    if (b.remaining() < 10 || b.getInt() != MAGIC) {
      return null;
    }
    int crc = b.getInt();
    int keyLen = b.getShort() & 0xFFFF;
    if (keyLen > MAX_KEY_BYTES || b.remaining() < keyLen + 12) {
      return null;
    }
    byte[] key = new byte[keyLen];
    b.get(key);
    long offset = b.getLong();
    int length = b.getInt();
    int hb = headerBytes(keyLen);
    if (offset < 0 || length < 0 || fileBytes != (long) hb + length) {
      return null;
    }
    return new Header(new Range(new String(key, StandardCharsets.UTF_8), offset, length), crc, hb);
  }

  static int headerBytes(int keyLen) {
    return 4 + 4 + 2 + keyLen + 8 + 4;
  }

  Path file(Range r) {
    return dir.resolve(name(r) + SUFFIX);
  }

  static String name(Range r) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(r.objectKey().getBytes(StandardCharsets.UTF_8));
      md.update(
          ByteBuffer.allocate(13).put((byte) 0).putLong(r.offset()).putInt(r.length()).array());
      return HexFormat.of().formatHex(md.digest(), 0, 20);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Found(Range range, long fileBytes, FileTime modified) {}

  /** Rebuilds the index from the directory's headers; deletes temporaries and bad files. */
  private void scan() throws IOException {
    Files.createDirectories(dir);
    List<Found> found = new ArrayList<>();
    int seen = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String n = p.getFileName().toString();
        if (n.endsWith(TMP_SUFFIX)) {
          Files.deleteIfExists(p);
          continue;
        }
        if (!n.endsWith(SUFFIX)) {
          continue;
        }
        if (++seen > maxFiles) {
          // Bounded: what is beyond the bound is deleted rather than left unaccounted for.
          Files.deleteIfExists(p);
          continue;
        }
        try {
          long size = Files.size(p);
          byte[] head = new byte[headerBytes(MAX_KEY_BYTES)];
          int got;
          try (InputStream in = Files.newInputStream(p)) {
            got = in.readNBytes(head, 0, head.length);
          }
          Header h = parseHeader(ByteBuffer.wrap(head, 0, got), size);
          if (h == null || !n.equals(name(h.range()) + SUFFIX)) {
            Files.deleteIfExists(p);
            continue;
          }
          found.add(new Found(h.range(), size, Files.getLastModifiedTime(p)));
        } catch (IOException x) {
          Files.deleteIfExists(p);
        }
      }
    }
    // Oldest first, so the access order starts at the least recently written.
    found.sort(Comparator.comparing(Found::modified));
    List<Range> victims = new ArrayList<>();
    synchronized (this) {
      for (Found f : found) {
        if (index.put(f.range(), new Entry(f.fileBytes(), true)) == null) {
          bytes += f.fileBytes();
        }
      }
      evictLocked(victims, null);
    }
    deleteFiles(victims);
    log.info("disk cache ready dir={} ranges={} bytes={}", dir, entries(), bytes());
  }
}
