package dev.loam.meta.ratis.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringReader;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageMetadata;
import org.apache.ratis.server.storage.RaftStorageMetadataFile;
import org.apache.ratis.util.TimeDuration;
import org.apache.ratis.util.TimeoutExecutor;
import org.apache.ratis.util.Timestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a replica's Raft term and vote durable when its disk fills (docs/design/metastore-ratis.md
 * "What each failure surfaces as").
 *
 * <p>Ratis stores them in {@code current/raft-meta} (a properties file: {@code term}, {@code
 * votedFor}), rewritten through a temporary file and a rename. When the disk is full, the write of
 * the temporary file fails, but the failure is swallowed on the way to the close that renames it
 * (the JDK's stream encoder drops the bytes it could not write and then closes cleanly), so an
 * empty file replaces the last good one. The replica runs on with the term and vote it holds in
 * memory, but a restart finds no term: Ratis refuses to start, and must, since a voter that forgot
 * its vote could vote twice in one term.
 *
 * <p>The guard does three things. It checks the file once a second and, when it no longer holds a
 * term and a vote, stops the replica (fail-stop, like a failed log write): rewriting the file under
 * a running server could race a newer write of Ratis's own. When the replica closes, it rewrites
 * the file with what Ratis last persisted successfully — the value Ratis still holds for it, which
 * is exactly what the lost file said — into a reserve file that was written while the disk had
 * room, so the repair needs no new disk blocks, then renames it into place. And at start, before
 * Ratis reads it, a file that holds no term is refused as corruption naming the file, rather than
 * as Ratis's start failure.
 *
 * <p>Shared by Loam's Ratis servers: the metastore's replica ({@code RatisMetastore}) and every
 * journal group a node's journal server hosts ({@code loam-journal}'s {@code JournalServer}), each
 * of which has a {@code raft-meta} of its own. Not API: its signatures change without notice.
 */
public final class RaftMetaGuard {
  private static final Logger LOG = LoggerFactory.getLogger(RaftMetaGuard.class);

  /** Ratis's name for the file, under the group's {@code current} directory. */
  public static final String META_FILE = "raft-meta";

  /** The reserve, in the group's directory next to {@code current}. */
  public static final String RESERVE_FILE = "loam-raft-meta.reserve";

  private static final int RESERVE_BYTES = 4096;
  private static final TimeDuration PERIOD = TimeDuration.valueOf(1, TimeUnit.SECONDS);
  private static final long RETRY_MILLIS = 200;

  private final Path metaFile;
  private final Path reserve;
  private final RaftStorageMetadataFile durable;
  private final String peer;
  private final Consumer<String> onLost;
  private volatile boolean stopped;
  private volatile boolean reported;

  private RaftMetaGuard(
      Path groupDir, RaftStorageMetadataFile durable, String peer, Consumer<String> onLost) {
    this.metaFile = groupDir.resolve("current").resolve(META_FILE);
    this.reserve = groupDir.resolve(RESERVE_FILE);
    this.durable = durable;
    this.peer = peer;
    this.onLost = onLost;
  }

  /**
   * Starts guarding a running replica's storage: writes the reserve (best effort: a disk already
   * full at start leaves the repair to a fresh file) and checks the file once a second, calling
   * {@code onLost} with a description once if it stops holding a term and a vote.
   */
  public static RaftMetaGuard start(RaftStorage storage, String peer, Consumer<String> onLost) {
    RaftMetaGuard g =
        new RaftMetaGuard(
            storage.getStorageDir().getRoot().toPath(), storage.getMetadataFile(), peer, onLost);
    try {
      g.writeReserve();
    } catch (IOException e) {
      LOG.warn("cannot write the raft-meta reserve {} peer={}", g.reserve, peer, e);
    }
    g.schedule();
    return g;
  }

  /**
   * Why the file at {@code groupDir/current/raft-meta} cannot be used, if it exists and holds no
   * term and vote; empty when it is sound or absent (a replica that never persisted one).
   */
  public static Optional<String> problem(Path groupDir) {
    return problemWith(groupDir.resolve("current").resolve(META_FILE));
  }

  private static Optional<String> problemWith(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("cannot read " + file + ": " + e.getMessage());
    }
    Properties p = new Properties();
    try {
      p.load(new StringReader(new String(bytes, StandardCharsets.UTF_8)));
    } catch (IOException | IllegalArgumentException e) {
      return Optional.of(file + " is not a properties file (" + bytes.length + " bytes)");
    }
    String term = p.getProperty("term");
    if (term == null || p.getProperty("votedFor") == null) {
      return Optional.of(
          file + " holds no term and vote (" + bytes.length + " bytes; a write that failed)");
    }
    try {
      if (Long.parseLong(term) < 0) {
        return Optional.of(file + " holds a negative term " + term);
      }
    } catch (NumberFormatException e) {
      return Optional.of(file + " holds a term that is not a number: " + term);
    }
    return Optional.empty();
  }

  /** Stops the periodic check. */
  public void stop() {
    stopped = true;
  }

  /**
   * After the server closed: if the file holds no term and vote, rewrites it with what Ratis last
   * persisted, retrying for up to {@code budgetMillis} while the disk refuses. Returns what it did,
   * for the close path to log; never throws.
   */
  public String repairAfterClose(long budgetMillis) {
    stop();
    Optional<String> problem = problemWith(metaFile);
    if (problem.isEmpty()) {
      return "";
    }
    RaftStorageMetadata last;
    try {
      last = durable.getMetadata();
    } catch (IOException e) {
      return "raft-meta lost and the last persisted term is unknown peer="
          + peer
          + ": "
          + problem.get();
    }
    byte[] content = render(last);
    Timestamp start = Timestamp.currentTime();
    IOException lastError = null;
    while (true) {
      try {
        replaceWith(content);
        String done =
            "raft-meta restored term="
                + last.getTerm()
                + " votedFor="
                + last.getVotedFor()
                + " peer="
                + peer
                + " file="
                + metaFile;
        LOG.warn("{} (it was lost: {})", done, problem.get());
        return done;
      } catch (IOException e) {
        lastError = e;
      }
      if (start.elapsedTimeMs() >= budgetMillis || !pause()) {
        break;
      }
    }
    String failed =
        "raft-meta lost and could not be rewritten peer="
            + peer
            + ": restore "
            + metaFile
            + " with term="
            + last.getTerm()
            + " and votedFor="
            + last.getVotedFor()
            + " before restarting ("
            + lastError.getMessage()
            + ")";
    LOG.error("{}", failed);
    return failed;
  }

  /** Waits between attempts on the closing thread; false when interrupted. */
  private synchronized boolean pause() {
    try {
      wait(RETRY_MILLIS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  // ---- the periodic check

  private void schedule() {
    if (stopped) {
      return;
    }
    TimeoutExecutor.getInstance()
        .onTimeout(PERIOD, this::tick, LOG, () -> "raft-meta check failed peer=" + peer);
  }

  private void tick() {
    try {
      if (!stopped && !reported) {
        Optional<String> p = problemWith(metaFile);
        if (p.isPresent()) {
          reported = true;
          onLost.accept(p.get());
        }
      }
    } finally {
      schedule();
    }
  }

  // ---- writing

  /** The file as Ratis writes it: a properties file with {@code term} and {@code votedFor}. */
  public static byte[] render(RaftStorageMetadata m) {
    Properties p = new Properties();
    p.setProperty("term", Long.toString(m.getTerm()));
    p.setProperty("votedFor", m.getVotedFor().toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
      p.store(w, "");
    } catch (IOException e) {
      throw new IllegalStateException("in-memory write failed", e);
    }
    return out.toByteArray();
  }

  private void writeReserve() throws IOException {
    Path tmp = reserve.resolveSibling(RESERVE_FILE + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      writeFully(ch, ByteBuffer.allocate(RESERVE_BYTES));
      ch.force(true);
    }
    Files.move(tmp, reserve, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(reserve.getParent());
  }

  /**
   * Writes {@code content} over the reserve's allocated bytes (no new blocks on a full disk), cuts
   * it to length, syncs it and renames it over the file; without a reserve, writes a fresh
   * temporary file (which a full disk refuses, to be retried).
   */
  private void replaceWith(byte[] content) throws IOException {
    Path source = reserve;
    if (!Files.exists(reserve)) {
      source = metaFile.resolveSibling(META_FILE + ".loam-repair");
    }
    try (FileChannel ch =
        FileChannel.open(source, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ch.position(0);
      writeFully(ch, ByteBuffer.wrap(content));
      ch.truncate(content.length);
      ch.force(true);
    }
    byte[] written = Files.readAllBytes(source);
    if (!java.util.Arrays.equals(written, content)) {
      throw new IOException("the repaired raft-meta did not read back as written: " + source);
    }
    Files.move(
        source, metaFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDirectory(metaFile.getParent());
    if (source.equals(reserve)) {
      syncDirectory(reserve.getParent());
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
