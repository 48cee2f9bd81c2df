package dev.loam.meta.embedded;

import dev.loam.error.CorruptionException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * An in-memory {@link MetaDisk} of one directory that loses, at a power loss, exactly what the
 * durability contract of {@link MetaDisk} allows: file bytes written since the file's last force
 * survive only as a prefix of what was written, possibly with its last bytes torn (zeroed or
 * garbage), and directory operations made since the last directory sync survive only as a prefix of
 * them, in order.
 *
 * <p>A crash is scheduled as a count of mutating operations: the operation that exhausts it takes
 * effect in memory but throws, and every later operation throws, as a process whose machine lost
 * power would see nothing more. {@link #afterPowerLoss} then gives the disk a rebooted machine
 * finds. Two deliberately broken variants ({@link Flaw}) make the durability primitives lie, so a
 * test can show its checker notices what they lose.
 */
final class CrashingDisk implements MetaDisk {
  /** A way the disk may break its contract, to prove a checker catches the loss. */
  enum Flaw {
    NONE,
    /** {@link LogFile#force()} returns without making anything durable. */
    FORCE_IS_NOOP,
    /** {@link #syncDirectory} returns without making directory operations durable. */
    DIRECTORY_SYNC_IS_NOOP
  }

  private static final class Inode {
    byte[] bytes = new byte[0];
    int size;
    byte[] durable = new byte[0];

    byte[] current() {
      return Arrays.copyOf(bytes, size);
    }

    void writeAt(long position, ByteBuffer src) {
      int pos = Math.toIntExact(position);
      int n = src.remaining();
      if (pos + n > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(pos + n, bytes.length * 2));
      }
      src.get(bytes, pos, n);
      size = Math.max(size, pos + n);
    }
  }

  private sealed interface DirOp {}

  private record Create(String name, Inode inode) implements DirOp {}

  private record Rename(String from, String to) implements DirOp {}

  private record Delete(String name) implements DirOp {}

  private final Path dir;
  private final Flaw flaw;
  private final Map<String, Inode> names;
  private final Map<String, Inode> durableNames;
  private final List<DirOp> unsynced = new ArrayList<>();
  private long opsBeforeCrash;
  private boolean crashed;
  private String crashedIn;
  private boolean locked;
  private long mutatingOps;

  private CrashingDisk(Path dir, Flaw flaw, Map<String, Inode> files, long opsBeforeCrash) {
    this.dir = dir;
    this.flaw = flaw;
    this.names = new HashMap<>(files);
    this.durableNames = new HashMap<>(files);
    this.opsBeforeCrash = opsBeforeCrash;
  }

  /** An empty directory {@code dir} that loses power at the {@code opsBeforeCrash}-th operation. */
  static CrashingDisk empty(Path dir, Flaw flaw, long opsBeforeCrash) {
    return new CrashingDisk(dir, flaw, Map.of(), opsBeforeCrash);
  }

  /** Whether the scheduled power loss happened. */
  boolean crashed() {
    return crashed;
  }

  /** The operation that lost power ("write", "force", "rename"...), or null. */
  String crashedIn() {
    return crashedIn;
  }

  /** Mutating operations performed so far. */
  long mutatingOps() {
    return mutatingOps;
  }

  /**
   * The directory a rebooted machine finds after a power loss now, choosing among the states the
   * contract allows with {@code random}; it loses power again after {@code opsBeforeCrash}
   * operations ({@link Long#MAX_VALUE} for never).
   */
  CrashingDisk afterPowerLoss(Random random, long opsBeforeCrash) {
    Map<String, Inode> dirState = new HashMap<>(durableNames);
    int keep = random.nextInt(unsynced.size() + 1);
    for (DirOp op : unsynced.subList(0, keep)) {
      replay(dirState, op);
    }
    Map<String, Inode> files = new HashMap<>();
    Map<Inode, Inode> rebooted = new HashMap<>();
    for (Map.Entry<String, Inode> e : dirState.entrySet()) {
      files.put(e.getKey(), rebooted.computeIfAbsent(e.getValue(), i -> survivor(i, random)));
    }
    return new CrashingDisk(dir, flaw, files, opsBeforeCrash);
  }

  private static void replay(Map<String, Inode> state, DirOp op) {
    if (op instanceof Create c) {
      state.put(c.name(), c.inode());
    } else if (op instanceof Rename r) {
      Inode moved = state.remove(r.from());
      if (moved != null) {
        state.put(r.to(), moved);
      }
    } else if (op instanceof Delete d) {
      state.remove(d.name());
    }
  }

  /** What survives of one file's bytes. */
  private static Inode survivor(Inode inode, Random random) {
    byte[] durable = inode.durable;
    byte[] current = inode.current();
    byte[] kept;
    boolean appendedOnly =
        current.length >= durable.length
            && Arrays.equals(current, 0, durable.length, durable, 0, durable.length);
    if (appendedOnly) {
      int tail = random.nextInt(current.length - durable.length + 1);
      kept = Arrays.copyOf(current, durable.length + tail);
      if (tail > 0 && random.nextInt(4) == 0) {
        // A torn sector: the last bytes of the unsynced tail are zeros or garbage.
        int torn = 1 + random.nextInt(Math.min(tail, 64));
        boolean zeros = random.nextBoolean();
        for (int i = kept.length - torn; i < kept.length; i++) {
          kept[i] = zeros ? 0 : (byte) random.nextInt(256);
        }
      }
    } else {
      // Truncated or rewritten since the last force: either version may be what is on disk.
      kept = random.nextBoolean() ? durable : current;
    }
    Inode out = new Inode();
    out.bytes = kept;
    out.size = kept.length;
    out.durable = kept;
    return out;
  }

  private void tick(String op) throws IOException {
    if (crashed) {
      throw new IOException("simulated power loss: the disk is gone");
    }
    mutatingOps++;
    if (--opsBeforeCrash < 0) {
      crashed = true;
      crashedIn = op;
    }
  }

  /** Throws when the operation just performed was the one that lost power. */
  private void afterEffect() throws IOException {
    if (crashed) {
      throw new IOException("simulated power loss during the operation");
    }
  }

  private String name(Path file) {
    if (!dir.equals(file.getParent())) {
      throw new IllegalArgumentException("outside the simulated directory: " + file);
    }
    return file.getFileName().toString();
  }

  private Inode existing(Path file) throws NoSuchFileException {
    Inode i = names.get(name(file));
    if (i == null) {
      throw new NoSuchFileException(file.toString());
    }
    return i;
  }

  private void dirOp(DirOp op) {
    replay(names, op);
    unsynced.add(op);
  }

  @Override
  public void createDirectories(Path d) {
    if (!dir.equals(d)) {
      throw new IllegalArgumentException("outside the simulated directory: " + d);
    }
  }

  @Override
  public Closeable tryLock(Path lockFile) {
    name(lockFile);
    if (locked) {
      return null;
    }
    locked = true;
    return () -> locked = false;
  }

  @Override
  public List<String> list(Path d) {
    createDirectories(d);
    return new ArrayList<>(names.keySet());
  }

  @Override
  public long size(Path file) throws IOException {
    return existing(file).size;
  }

  @Override
  public byte[] read(Path file, long position, int length) throws IOException {
    Inode i = existing(file);
    if (position + length > i.size) {
      throw new CorruptionException("unexpected end of file position=" + position);
    }
    return Arrays.copyOfRange(i.bytes, (int) position, (int) position + length);
  }

  @Override
  public LogFile open(Path file, boolean createNew) throws IOException {
    Inode inode;
    if (createNew) {
      if (names.containsKey(name(file))) {
        throw new FileAlreadyExistsException(file.toString());
      }
      tick("create");
      inode = new Inode();
      dirOp(new Create(name(file), inode));
      afterEffect();
    } else {
      inode = existing(file);
    }
    return new LogFile() {
      private long position;

      @Override
      public long size() {
        return inode.size;
      }

      @Override
      public void position(long p) {
        position = p;
      }

      @Override
      public void write(ByteBuffer src) throws IOException {
        tick("write");
        int n = src.remaining();
        inode.writeAt(position, src);
        position += n;
        afterEffect();
      }

      @Override
      public void truncate(long newSize) throws IOException {
        tick("truncate");
        inode.size = (int) Math.min(inode.size, newSize);
        position = Math.min(position, newSize);
        afterEffect();
      }

      @Override
      public void force() throws IOException {
        tick("force");
        if (flaw != Flaw.FORCE_IS_NOOP) {
          inode.durable = inode.current();
        }
        afterEffect();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void writeDurably(Path file, byte[] bytes) throws IOException {
    tick("snapshot write");
    Inode inode = names.get(name(file));
    if (inode == null) {
      inode = new Inode();
      dirOp(new Create(name(file), inode));
    }
    inode.size = 0;
    inode.writeAt(0, ByteBuffer.wrap(bytes));
    afterEffect();
    tick("snapshot force");
    if (flaw != Flaw.FORCE_IS_NOOP) {
      inode.durable = inode.current();
    }
    afterEffect();
  }

  @Override
  public void moveAtomically(Path from, Path to) throws IOException {
    existing(from);
    tick("rename");
    dirOp(new Rename(name(from), name(to)));
    afterEffect();
  }

  @Override
  public void deleteIfExists(Path file) throws IOException {
    if (!names.containsKey(name(file))) {
      return;
    }
    tick("delete");
    dirOp(new Delete(name(file)));
    afterEffect();
  }

  @Override
  public void syncDirectory(Path d) throws IOException {
    createDirectories(d);
    tick("directory sync");
    if (flaw != Flaw.DIRECTORY_SYNC_IS_NOOP) {
      durableNames.clear();
      durableNames.putAll(names);
      unsynced.clear();
    }
    afterEffect();
  }
}
