package dev.loam.store.fs;

import static dev.loam.store.ObjectKeys.describe;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ObjectKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default {@link ObjectStore}: objects are files under one root directory on a local
 * filesystem, and several processes may share that directory.
 *
 * <p>Layout (see {@code docs/reference/object-store.md}): key {@code wal/0001} is the file {@code
 * <root>/wal/0001~}. Leaf files carry a {@code ~} suffix, a character no key may contain, so the
 * object {@code a} (file {@code a~}) and the directory holding {@code a/b} (directory {@code a})
 * never clash. Segments longer than {@value #CHUNK_CHARS} chars are split into continuation
 * directories named {@code <chunk>+} so a valid 1024-byte key never hits the filesystem's 255-byte
 * name limit. Temporary files start with {@code ~tmp-} and are never listed.
 *
 * <p>Writes: the bytes go to a fresh temporary file in the target directory, which is fsynced;
 * {@link #create} then hard-links it to the final name ({@code link(2)} fails atomically if the
 * name is taken, also across processes) and {@link #put} renames it over the final name; the
 * directories up to the root are fsynced before the future completes. Readers therefore see either
 * no object or the whole object. {@code lastModifiedMillis} is the injected clock's time at the
 * write, stored as the file's modification time.
 *
 * <p>Blocking I/O runs on the injected executor; this class owns no threads. Thread-safe. Requires
 * a local POSIX filesystem with hard links and case-sensitive names (Linux ext4/xfs/btrfs/tmpfs).
 *
 * <p>One file for the whole store, as each cloud store is one file: the SPI's nine operations share
 * the key-to-path mapping, the write protocol and the error mapping above, and splitting them would
 * scatter that protocol across files.
 */
public final class FileSystemObjectStore implements ObjectStore {
  private static final Logger LOG = LoggerFactory.getLogger(FileSystemObjectStore.class);

  /** Suffix of a file holding an object; not a key character, so it never meets a directory. */
  static final String LEAF_SUFFIX = "~";

  /** Suffix of a directory holding the next chunk of an over-long segment. */
  static final String CONTINUATION_SUFFIX = "+";

  /** Prefix of temporary files; starts with a non-key character so no object name can match. */
  static final String TEMP_PREFIX = "~tmp-";

  /** Longest segment chunk stored as one name: under NAME_MAX even on eCryptfs (143). */
  static final int CHUNK_CHARS = 128;

  /** Bound on temp names tried when a name is taken (leftover of a crashed process, pid reuse). */
  private static final int MAX_TEMP_NAME_ATTEMPTS = 16;

  /** Bound on retries when a concurrent delete removes an empty parent directory under a write. */
  private static final int MAX_VANISHED_DIRECTORY_RETRIES = 16;

  /** Largest object {@link #get(String)} can return as one array. */
  private static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  /** The operations, so one mapping can say what a filesystem error means for each. */
  private enum Op {
    CREATE,
    PUT,
    GET,
    GET_TAIL,
    HEAD,
    LIST,
    DELETE;

    boolean isRead() {
      return this == GET || this == GET_TAIL || this == HEAD || this == LIST;
    }
  }

  /** A blocking filesystem action run on the I/O executor. */
  @FunctionalInterface
  private interface IoAction<T> {
    T run() throws IOException;
  }

  /**
   * An I/O failure after the commit point (link or rename done, directory fsync failed): the object
   * is visible but its durability is unknown, so the caller must see "outcome unknown".
   */
  private static final class AfterCommitException extends IOException {
    private static final long serialVersionUID = 1L;

    AfterCommitException(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** Where one key lives: its directory and its leaf file. */
  private record Location(Path dir, Path file) {}

  private final Path root;
  private final Executor ioExecutor;
  private final InstantSource clock;
  private final String tempStem;
  private final AtomicLong tempCounter = new AtomicLong();
  private volatile boolean closed;

  /**
   * A store over {@code root}, which is created on the first write if missing. The constructor does
   * no I/O.
   *
   * @param root directory holding the objects; may be shared with other processes
   * @param ioExecutor runs every blocking file operation; the store never shuts it down
   * @param clock source of each object's {@code lastModifiedMillis}
   */
  public FileSystemObjectStore(Path root, Executor ioExecutor, InstantSource clock) {
    this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
    this.ioExecutor = Objects.requireNonNull(ioExecutor, "ioExecutor");
    this.clock = Objects.requireNonNull(clock, "clock");
    // Temp names must differ across processes and across stores in one process. The pid separates
    // live processes; the identity hash separates instances in one JVM; the counter separates
    // writes. None of this needs to be perfect: temp files are opened with CREATE_NEW, so a clash
    // (pid reuse across containers, a crashed process's leftover) costs a retry, never an
    // overwrite.
    this.tempStem =
        TEMP_PREFIX
            + ProcessHandle.current().pid()
            + "-"
            + Integer.toHexString(System.identityHashCode(this))
            + "-";
  }

  /** The root directory of this store. */
  public Path root() {
    return root;
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(bytes, "bytes");
    return withKey(Op.CREATE, key, () -> write(key, bytes, true));
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(bytes, "bytes");
    return withKey(Op.PUT, key, () -> write(key, bytes, false));
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    Objects.requireNonNull(key, "key");
    return withKey(
        Op.GET,
        key,
        () -> {
          try (FileChannel ch = FileChannel.open(locate(key).file(), StandardOpenOption.READ)) {
            // Objects are immutable once linked or renamed into place, so the size is stable.
            long size = ch.size();
            if (size > MAX_ARRAY_BYTES) {
              throw new InvalidRangeException(
                  "object of "
                      + size
                      + " bytes is too large for one array; read ranges"
                      + describe(key));
            }
            return readAt(ch, 0, (int) size);
          }
        });
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    Objects.requireNonNull(key, "key");
    return withKey(
        Op.GET,
        key,
        () -> {
          if (offset < 0 || length <= 0) {
            throw new InvalidRangeException(
                "offset " + offset + " must be >= 0 and length " + length + " > 0" + describe(key));
          }
          try (FileChannel ch = FileChannel.open(locate(key).file(), StandardOpenOption.READ)) {
            long size = ch.size();
            if (offset >= size) {
              throw new InvalidRangeException(
                  "offset " + offset + " at or beyond object size " + size + describe(key));
            }
            return readAt(ch, offset, (int) Math.min((long) length, size - offset));
          }
        });
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    Objects.requireNonNull(key, "key");
    return withKey(
        Op.GET_TAIL,
        key,
        () -> {
          if (length <= 0) {
            throw new InvalidRangeException(
                "tail length " + length + " must be > 0" + describe(key));
          }
          try (FileChannel ch = FileChannel.open(locate(key).file(), StandardOpenOption.READ)) {
            long size = ch.size();
            int n = (int) Math.min((long) length, size);
            return new TailRead(readAt(ch, size - n, n), size);
          }
        });
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    Objects.requireNonNull(key, "key");
    return withKey(
        Op.HEAD,
        key,
        () -> {
          try {
            return Optional.of(stat(key));
          } catch (NoSuchFileException e) {
            return Optional.empty();
          }
        });
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter");
    Optional<InvalidRangeException> badMax = ObjectKeys.checkMaxKeys(maxKeys, prefix);
    if (badMax.isPresent()) {
      return CompletableFuture.failedFuture(badMax.get());
    }
    return submit(Op.LIST, prefix, () -> listNow(prefix, startAfter, maxKeys));
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    List<String> batch = List.copyOf(keys); // also rejects null elements, at once
    Optional<InvalidRangeException> tooMany = ObjectKeys.checkDeleteBatch(batch.size());
    if (tooMany.isPresent()) {
      return CompletableFuture.failedFuture(tooMany.get());
    }
    return submit(Op.DELETE, batch.size() + " keys", () -> deleteNow(batch));
  }

  /**
   * Marks the store closed: later calls fail with {@link StoreUnavailableException}. Operations
   * already submitted to the executor run to completion (the executor is the caller's).
   */
  @Override
  public void close() {
    closed = true;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  private Void write(String key, byte[] bytes, boolean exclusive) throws IOException {
    Location loc = locate(key);
    for (int attempt = 1; ; attempt++) {
      Path temp;
      try {
        ensureDirectories(loc.dir());
        temp = writeTemp(loc.dir(), bytes);
      } catch (NoSuchFileException e) {
        // A delete in this or another process removed a directory it found empty between our
        // mkdir and our temp write. Create the chain again, a bounded number of times.
        if (attempt >= MAX_VANISHED_DIRECTORY_RETRIES) {
          throw e;
        }
        continue;
      }
      boolean moved = false;
      try {
        if (exclusive) {
          // The commit point of create: link(2) refuses an existing name atomically, across
          // processes, so exactly one of several racing creators wins and nobody overwrites.
          Files.createLink(loc.file(), temp);
        } else {
          // The commit point of put: rename(2) replaces the name atomically; readers holding the
          // old file keep reading the old bytes.
          Files.move(temp, loc.file(), StandardCopyOption.ATOMIC_MOVE);
          moved = true;
        }
      } finally {
        if (!moved) {
          deleteTemp(temp); // after a link the object holds the inode; the temp name must go
        }
      }
      try {
        syncDirectories(loc.dir());
      } catch (IOException e) {
        throw new AfterCommitException(e);
      }
      return null;
    }
  }

  /** Writes a fresh, fsynced temp file in {@code dir} holding {@code bytes}. */
  private Path writeTemp(Path dir, byte[] bytes) throws IOException {
    for (int i = 0; i < MAX_TEMP_NAME_ATTEMPTS; i++) {
      Path temp = dir.resolve(tempStem + tempCounter.incrementAndGet());
      FileChannel ch;
      try {
        ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException taken) {
        continue;
      }
      try (ch) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        // The hard link and the rename keep the inode, so this becomes the object's mtime.
        Files.setLastModifiedTime(temp, FileTime.fromMillis(clock.millis()));
        // Data and metadata must be on disk before the name is published, or a crash after the
        // link could leave a visible but empty or torn object.
        ch.force(true);
      } catch (IOException | RuntimeException e) {
        deleteTemp(temp);
        throw e;
      }
      return temp;
    }
    throw new FileSystemException(
        dir.toString(), null, "no free temp file name after " + MAX_TEMP_NAME_ATTEMPTS + " tries");
  }

  /** Creates {@code dir} and its parents below the root, tolerating concurrent creators. */
  private void ensureDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    if (!Files.isDirectory(root)) {
      try {
        Files.createDirectories(root);
      } catch (FileAlreadyExistsException e) {
        throw new NotDirectoryException(root.toString());
      }
      syncDirectory(root.getParent());
    }
    Path current = root;
    for (Path name : root.relativize(dir)) {
      current = current.resolve(name);
      try {
        Files.createDirectory(current);
      } catch (FileAlreadyExistsException e) {
        // Another writer made it first (fine), unless it is not a directory at all. It may also
        // be gone again, removed by a delete that found it empty: that is the vanished-directory
        // case our caller retries.
        if (!Files.isDirectory(current)) {
          if (Files.notExists(current)) {
            throw new NoSuchFileException(current.toString());
          }
          throw new NotDirectoryException(current.toString());
        }
      }
    }
  }

  /**
   * Fsyncs {@code dir} and every directory above it up to the root, so the new name and any new
   * directories on the way survive a crash. Directories a concurrent writer created may not be
   * synced by it yet, so we sync the whole chain rather than only what we created; an fsync of a
   * clean directory is cheap.
   */
  private void syncDirectories(Path dir) throws IOException {
    for (Path d = dir; d != null && d.startsWith(root); d = d.getParent()) {
      try {
        syncDirectory(d);
      } catch (NoSuchFileException e) {
        // A concurrent delete already removed the object and its emptied directory; there is
        // nothing left whose durability matters.
        return;
      }
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    if (dir == null) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  private static void deleteTemp(Path temp) {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      // Harmless for correctness: listings skip temp names. Only disk space leaks.
      LOG.warn("could not delete temp file {}", temp, e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Delete

  private List<DeleteFailure> deleteNow(List<String> keys) {
    List<DeleteFailure> failures = new ArrayList<>();
    for (String key : keys) {
      Optional<? extends ObjectStoreException> invalid = ObjectKeys.check(key);
      if (invalid.isPresent()) {
        failures.add(new DeleteFailure(key, invalid.get()));
        continue;
      }
      try {
        Location loc = locate(key);
        Files.deleteIfExists(loc.file());
        removeEmptyDirectories(loc.dir());
      } catch (IOException | UncheckedIOException e) {
        failures.add(new DeleteFailure(key, mapFailure(Op.DELETE, key, e)));
      }
    }
    return failures;
  }

  /**
   * Removes {@code dir} and its parents below the root while they are empty, so deleted key ranges
   * do not leave directories behind forever. A writer racing with this sees its directory vanish
   * and retries (see {@link #write}); a directory a writer has put a temp file in is not empty.
   */
  private void removeEmptyDirectories(Path dir) {
    for (Path d = dir; d != null && !d.equals(root) && d.startsWith(root); d = d.getParent()) {
      try {
        Files.delete(d);
      } catch (IOException e) {
        // Not empty (the usual case), already gone, or not removable: all stop the climb, and
        // none matters for the delete itself, which has happened.
        return;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // List

  private ListPage listNow(String prefix, String startAfter, int maxKeys) throws IOException {
    for (int i = 0; i < prefix.length(); i++) {
      if (!ObjectKeys.isKeyChar(prefix.charAt(i))) {
        return new ListPage(List.of(), Optional.empty()); // no valid key can match
      }
    }
    // Start at the deepest directory the prefix names in full; only its subtree can match.
    String dirPart = prefix.substring(0, prefix.lastIndexOf('/') + 1);
    Path start = root;
    if (!dirPart.isEmpty()) {
      for (String segment : dirPart.substring(0, dirPart.length() - 1).split("/", -1)) {
        if (!ObjectKeys.isValidSegment(segment)) {
          return new ListPage(List.of(), Optional.empty());
        }
        start = appendSegment(start, segment, false);
      }
    }
    // The smallest maxKeys + 1 matching keys: the extra one tells whether more follow. Bounded
    // memory however many objects the directory holds.
    TreeSet<String> best = new TreeSet<>();
    int keep = maxKeys + 1;
    Deque<Path> dirs = new ArrayDeque<>();
    Deque<String> dirKeys = new ArrayDeque<>();
    dirs.push(start);
    dirKeys.push(dirPart);
    while (!dirs.isEmpty()) {
      Path dir = dirs.pop();
      String keyPrefix = dirKeys.pop();
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
        for (Path entry : entries) {
          String name = entry.getFileName().toString();
          if (name.startsWith("~")) {
            continue; // a temp file, possibly another process's write in flight
          }
          String subtree;
          if (name.endsWith(LEAF_SUFFIX)) {
            String key = keyPrefix + name.substring(0, name.length() - LEAF_SUFFIX.length());
            if (key.startsWith(prefix)
                && key.compareTo(startAfter) > 0
                && ObjectKeys.isValid(key)) {
              if (best.size() < keep || key.compareTo(best.last()) < 0) {
                best.add(key);
                if (best.size() > keep) {
                  best.pollLast();
                }
              }
            }
            continue;
          } else if (name.endsWith(CONTINUATION_SUFFIX)) {
            String chunk = name.substring(0, name.length() - CONTINUATION_SUFFIX.length());
            if (chunk.length() != CHUNK_CHARS) {
              continue; // not ours
            }
            subtree = keyPrefix + chunk;
          } else {
            subtree = keyPrefix + name + "/";
          }
          if (mayHoldMatches(subtree, prefix, startAfter, best, keep)) {
            dirs.push(entry);
            dirKeys.push(subtree);
          }
        }
      } catch (NoSuchFileException | NotDirectoryException e) {
        // The directory vanished under a concurrent delete, or never existed: nothing to list.
      } catch (DirectoryIteratorException e) {
        if (!(e.getCause() instanceof NoSuchFileException)) {
          throw e.getCause();
        }
      }
    }
    List<String> sorted = new ArrayList<>(best);
    boolean more = sorted.size() > maxKeys;
    List<ObjectInfo> page = new ArrayList<>(Math.min(maxKeys, sorted.size()));
    for (String key : sorted.subList(0, Math.min(maxKeys, sorted.size()))) {
      try {
        page.add(stat(key));
      } catch (NoSuchFileException deletedMeanwhile) {
        // Deleted since we saw it; leaving it out is what a listing after the delete would show.
      }
    }
    return new ListPage(page, more ? Optional.of(sorted.get(maxKeys - 1)) : Optional.empty());
  }

  /**
   * Whether a subtree whose keys all start with {@code subtree} (and are longer) can hold a key of
   * this page. Pruning keeps paging through a large tree from re-reading what earlier pages
   * covered.
   */
  private static boolean mayHoldMatches(
      String subtree, String prefix, String startAfter, TreeSet<String> best, int keep) {
    if (!subtree.startsWith(prefix) && !prefix.startsWith(subtree)) {
      return false;
    }
    if (subtree.compareTo(startAfter) < 0 && !startAfter.startsWith(subtree)) {
      return false; // every key in it sorts before startAfter
    }
    return best.size() < keep || subtree.compareTo(best.last()) < 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Layout and reads

  private Location locate(String key) {
    Path dir = root;
    int start = 0;
    int slash;
    while ((slash = key.indexOf('/', start)) >= 0) {
      dir = appendSegment(dir, key.substring(start, slash), false);
      start = slash + 1;
    }
    Path file = appendSegment(dir, key.substring(start), true);
    // For a long last segment the continuation chunks are directories too: dir is the file's
    // parent, not the directory of the key's path segments.
    return new Location(file.getParent(), file);
  }

  /** {@code base} plus one key segment, as directories (and a leaf file if {@code leaf}). */
  private static Path appendSegment(Path base, String segment, boolean leaf) {
    Path p = base;
    int cut = 0;
    while (segment.length() - cut > CHUNK_CHARS) {
      p = p.resolve(segment.substring(cut, cut + CHUNK_CHARS) + CONTINUATION_SUFFIX);
      cut += CHUNK_CHARS;
    }
    return p.resolve(segment.substring(cut) + (leaf ? LEAF_SUFFIX : ""));
  }

  private ObjectInfo stat(String key) throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(locate(key).file(), BasicFileAttributes.class);
    return new ObjectInfo(key, attrs.size(), attrs.lastModifiedTime().toMillis());
  }

  /** Positional reads: no shared channel position, so one open file could serve many readers. */
  private static byte[] readAt(FileChannel ch, long offset, int length) throws IOException {
    byte[] out = new byte[length];
    ByteBuffer buf = ByteBuffer.wrap(out);
    while (buf.hasRemaining()) {
      int n = ch.read(buf, offset + buf.position());
      if (n < 0) {
        // Cannot happen for an immutable object; a foreign process truncated the file.
        throw new FileSystemException(
            ch.toString(), null, "object shorter than its size while reading");
      }
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Futures and failure mapping

  private <T> CompletableFuture<T> withKey(Op op, String key, IoAction<T> action) {
    Optional<? extends ObjectStoreException> invalid = ObjectKeys.check(key);
    if (invalid.isPresent()) {
      return CompletableFuture.failedFuture(invalid.get());
    }
    return submit(op, key, action);
  }

  private <T> CompletableFuture<T> submit(Op op, String subject, IoAction<T> action) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException(
              op.name().toLowerCase(Locale.ROOT) + " on a closed store" + describe(subject)));
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      ioExecutor.execute(
          () -> {
            try {
              result.complete(action.run());
            } catch (IOException | UncheckedIOException | ObjectStoreException e) {
              result.completeExceptionally(mapFailure(op, subject, e));
            } catch (RuntimeException | Error e) {
              result.completeExceptionally(e); // a bug; do not disguise it as a store failure
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(
          new StoreUnavailableException(
              "I/O executor rejected the " + op + " operation" + describe(subject), e));
    }
    return result;
  }

  /** The one place filesystem errors become the SPI's failure kinds. */
  private ObjectStoreException mapFailure(Op op, String key, Exception failure) {
    Throwable e = failure;
    if (e instanceof ObjectStoreException ose) {
      return ose; // already typed (invalid range, invalid key)
    }
    if (e instanceof UncheckedIOException u) {
      e = u.getCause();
    }
    if (e instanceof AfterCommitException) {
      return new StoreOutcomeUnknownException(
          op
              + " wrote the object but could not fsync its directory: "
              + e.getMessage()
              + describe(key),
          e.getCause());
    }
    if (e instanceof FileAlreadyExistsException && op == Op.CREATE) {
      return new ObjectExistsException("object already exists" + describe(key), e);
    }
    if (e instanceof NoSuchFileException && op.isRead()) {
      return new ObjectNotFoundException("object not found" + describe(key), e);
    }
    // Disk full, permissions, I/O errors, a file where a directory should be, ...: nothing was
    // committed (commit-point failures are handled above), so the caller may retry.
    return new StoreUnavailableException(
        op + " failed: " + e.getClass().getSimpleName() + ": " + e.getMessage() + describe(key), e);
  }

  @Override
  public String toString() {
    return "FileSystemObjectStore[" + root + "]";
  }
}
