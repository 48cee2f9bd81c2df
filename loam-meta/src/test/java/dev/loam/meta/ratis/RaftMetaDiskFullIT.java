package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.internal.RaftMetaGuard;
import dev.loam.meta.testing.ManualClock;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A voter's disk fills and an election follows: Ratis's rewrite of the voter's term and vote file
 * ({@code raft-meta}) fails and leaves it empty — checked here on a real full disk, a size-limited
 * tmpfs per replica. The guard stops the replica, its close rewrites the file with the last
 * persisted term and vote while the disk is still full (from the reserve written at start), a start
 * on an emptied file is refused as corruption naming it, and the repaired replica rejoins and
 * serves once the disk has room.
 *
 * <p>Mounting needs root or CAP_SYS_ADMIN, which the build machines have; without it the test fails
 * naming the mount command rather than running on an unlimited disk.
 */
// Runs beside the other classes marked so: its groups mostly wait for elections and closes.
@Execution(ExecutionMode.CONCURRENT)
class RaftMetaDiskFullIT {
  private static final long DISK_BYTES = 24L << 20;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(RatisFixtures.START_MILLIS);
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final List<Path> mounts = new ArrayList<>();
  private RatisTestCluster cluster;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
    executor.shutdownNow();
    mounts.forEach(RaftMetaDiskFullIT::unmount);
  }

  @Test
  void aVoterWhoseDiskFillsKeepsItsTermAndVote() throws Exception {
    for (String id : List.of("m1", "m2", "m3")) {
      mount(dir.resolve(id));
    }
    // Small log segments: a follower's next append then needs a new file, as a filled disk bites.
    cluster =
        RatisTestCluster.start(
            dir, 3, MetaSettings.defaults(), clock, executor, b -> b.logSegmentSizeBytes(64 << 10));
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    RatisFixtures.commitOne(leader, stream, "before", clock);
    cluster.awaitInSync();
    String leaderId = leader.peerId();
    String victim = cluster.ids().stream().filter(id -> !id.equals(leaderId)).findFirst().get();
    Path metaFile = metaFile(dir.resolve(victim));
    Properties before = read(metaFile);
    assertThat(before.getProperty("term")).isNotNull();

    // The file emptied as Ratis's failed rewrite leaves it, then the disk full: the guard stops
    // the replica, and its close restores the file through the reserve (no free block needed).
    Files.write(metaFile, new byte[0]);
    fill(dir.resolve(victim));
    LoamException failure =
        cluster.member(victim).whenFailed().get(RatisTestCluster.TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(failure.getMessage())
        .contains("Raft term and vote file lost")
        .contains("peer=" + victim);
    cluster.stop(victim);
    Properties repaired = read(metaFile);
    assertThat(repaired.getProperty("term")).isEqualTo(before.getProperty("term"));
    assertThat(repaired.getProperty("votedFor")).isEqualTo(before.getProperty("votedFor"));

    // A replica that did lose the file (no close: a kill) is refused at start, naming it.
    byte[] good = Files.readAllBytes(metaFile);
    Files.write(metaFile, new byte[0]);
    assertThatThrownBy(() -> cluster.start(victim))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("raft-meta")
        .hasMessageContaining("peer=" + victim);
    Files.write(metaFile, good);
    free(dir.resolve(victim));
    RatisMetastore back = cluster.start(victim);
    RatisFixtures.commitOne(back, stream, "between", clock);
    cluster.awaitInSync();

    // Now the real thing: the disk fills and an election follows. Ratis's rewrite of the term
    // fails and empties the file (the first attempt's rename frees the old file's block, so a
    // later one may succeed); whichever, the replica stops and closes with a sound file.
    fill(dir.resolve(victim));
    cluster.stop(leaderId);
    // The replica stops (its file emptied, or its log's next segment refused), or — when its
    // second rewrite found the freed block and its log still had preallocated room — the two
    // survivors elect a leader and it runs on; either way its close must leave a sound file.
    java.util.concurrent.CompletableFuture<LoamException> failed =
        cluster.member(victim).whenFailed();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RatisTestCluster.TIMEOUT_SECONDS);
    while (!failed.isDone()
        && cluster.members().stream().noneMatch(RatisMetastore::isLeader)
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(failed.isDone() || cluster.members().stream().anyMatch(RatisMetastore::isLeader))
        .as("the replica stopped or the survivors elected a leader")
        .isTrue();
    cluster.stop(victim);
    assertThat(RaftMetaGuard.problem(metaFile.getParent().getParent())).isEmpty();
    long termAfter = Long.parseLong(read(metaFile).getProperty("term"));
    assertThat(termAfter).isGreaterThanOrEqualTo(Long.parseLong(before.getProperty("term")));

    free(dir.resolve(victim));
    back = cluster.start(victim);
    cluster.start(leaderId);
    RatisFixtures.commitOne(back, stream, "after", clock);
    cluster.awaitInSync();
    assertThat(RatisFixtures.entries(back, stream)).hasSize(3);
    // Never behind what it persisted (equal when the surviving voter won the election the victim
    // voted in before its disk failed it, and still leads).
    assertThat(Long.parseLong(read(metaFile).getProperty("term")))
        .isGreaterThanOrEqualTo(termAfter);
  }

  @Test
  void rendersWhatRatisReads() throws IOException {
    org.apache.ratis.server.storage.RaftStorageMetadata m =
        org.apache.ratis.server.storage.RaftStorageMetadata.valueOf(
            42, org.apache.ratis.protocol.RaftPeerId.valueOf("n2"));
    Properties p = new Properties();
    p.load(new StringReader(new String(RaftMetaGuard.render(m), StandardCharsets.UTF_8)));
    assertThat(p.getProperty("term")).isEqualTo("42");
    assertThat(p.getProperty("votedFor")).isEqualTo("n2");
    Path group = dir.resolve("g");
    Files.createDirectories(group.resolve("current"));
    assertThat(RaftMetaGuard.problem(group)).isEmpty(); // absent: never persisted
    Files.write(group.resolve("current/raft-meta"), RaftMetaGuard.render(m));
    assertThat(RaftMetaGuard.problem(group)).isEmpty();
    Files.write(group.resolve("current/raft-meta"), "#\nvotedFor=n2\n".getBytes());
    assertThat(RaftMetaGuard.problem(group)).get().asString().contains("no term");
    Files.write(group.resolve("current/raft-meta"), "term=x\nvotedFor=\n".getBytes());
    assertThat(RaftMetaGuard.problem(group)).get().asString().contains("not a number");
  }

  private static Path metaFile(Path peerDir) throws IOException {
    try (Stream<Path> s = Files.walk(peerDir)) {
      return s.filter(p -> p.getFileName().toString().equals(RaftMetaGuard.META_FILE))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no raft-meta under " + peerDir));
    }
  }

  private static Properties read(Path file) throws IOException {
    Properties p = new Properties();
    p.load(new StringReader(Files.readString(file)));
    return p;
  }

  // ---- a size-limited disk per replica

  private void mount(Path at) throws IOException, InterruptedException {
    Files.createDirectories(at);
    run(List.of("mount", "-t", "tmpfs", "-o", "size=" + DISK_BYTES, "tmpfs", at.toString()));
    mounts.add(at);
  }

  private static void fill(Path at) throws IOException {
    byte[] block = new byte[64 * 1024];
    Path filler = at.resolve("filler");
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(block);
      }
    } catch (IOException e) {
      assertThat(e.getMessage()).contains("No space left");
    }
    try (OutputStream out =
        Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
      while (true) {
        out.write(0);
        out.flush();
      }
    } catch (IOException e) {
      // Full to the last byte.
    }
  }

  private static void free(Path at) throws IOException {
    Files.deleteIfExists(at.resolve("filler"));
  }

  private static void unmount(Path at) {
    try {
      run(List.of("umount", "-l", at.toString()));
    } catch (IOException | InterruptedException e) {
      // Best effort at teardown.
    }
  }

  private static void run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", cmd)
              + " failed (a size-limited disk needs root or CAP_SYS_ADMIN): "
              + out.strip());
    }
  }
}
