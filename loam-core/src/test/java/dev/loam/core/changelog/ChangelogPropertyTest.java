package dev.loam.core.changelog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.ChangelogMode;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The acceptance property of changelog streams (docs/design/changelog.md): random keyed appends,
 * updates and tombstones to a keyed source stream S, a changelog worker that crashes at every step
 * (its state lost; an append lost before it reaches the log, or whose answer is lost after it
 * committed), owner changes (the lease taken over by another holder once it expired) and corrupted
 * checkpoints; at the end the changelog equals the reference computation from S's log exactly: no
 * change lost, none doubled, per-key order kept. On a real embedded node.
 */
class ChangelogPropertyTest {
  private static final AtomicLong SKEW = new AtomicLong();
  private static final InstantSource CLOCK =
      () -> Instant.ofEpochMilli(System.currentTimeMillis() + SKEW.get());
  private static Path dir;
  private static LoamNode node;
  private static final AtomicLong TRY = new AtomicLong();
  private static final String ROOT = "changelog/test-cluster/";

  @BeforeContainer
  static void start() throws Exception {
    dir = Files.createTempDirectory("changelog-property");
    node =
        LoamNode.builder()
            .nodeId("n1")
            .dataDir(dir)
            .clock(CLOCK)
            .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(2)))
            .start();
    node.log().createNamespace("ns").get(10, TimeUnit.SECONDS);
  }

  @AfterContainer
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  private static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(20, TimeUnit.SECONDS);
  }

  /** A fenced append that a fault may drop before the log, or after it (a lost answer). */
  private static final class Faulty implements ChangelogWorker.FencedAppend {
    final Log log;
    final Random rnd;
    int dropsBefore;
    int dropsAfter;
    boolean off;

    Faulty(Log log, Random rnd) {
      this.log = log;
      this.rnd = rnd;
    }

    @Override
    public CompletableFuture<dev.loam.api.FencedAppendResult> append(
        String ns,
        String stream,
        int p,
        String source,
        long epoch,
        List<dev.loam.api.SourceGroup> g) {
      int f = off ? 5 : rnd.nextInt(6);
      if (f == 0) {
        dropsBefore++;
        return CompletableFuture.failedFuture(new IllegalStateException("crash before the append"));
      }
      CompletableFuture<dev.loam.api.FencedAppendResult> real =
          log.appendFenced(ns, stream, p, source, epoch, g);
      if (f == 1) {
        dropsAfter++;
        return real.handle(
            (r, e) -> {
              throw new IllegalStateException("crash after the append, its answer lost");
            });
      }
      return real;
    }
  }

  @Property(tries = 12)
  void theChangelogEqualsTheReferenceAfterCrashesAndOwnerChanges(@ForAll long seed)
      throws Exception {
    Random rnd = new Random(seed);
    Log log = node.log();
    long n = TRY.incrementAndGet();
    String s = "s" + n;
    String x = "x" + n;
    ChangelogMode mode = rnd.nextBoolean() ? ChangelogMode.FULL : ChangelogMode.UPSERT;
    // S keeps every record (delete policy, no retention), so the reference sees the whole log;
    // and it is not compacted, so the node's own changelog agent (which serves compacted
    // streams it owns) leaves these workers to the test. ChangelogStreamTest runs the agent.
    StreamDescription src =
        await(log.createStream("ns", s, new StreamSpec(2, Durability.STANDARD, -1, -1, false)));
    StreamDescription dst = await(log.createStream("ns", x, StreamSpec.standard(2)));
    InMemoryObjectStore checkpoints = new InMemoryObjectStore(CLOCK);
    ChangelogWorker.Settings settings =
        new ChangelogWorker.Settings(
            1 + rnd.nextInt(400),
            1 + rnd.nextInt(4),
            1 + rnd.nextInt(6),
            Duration.ofSeconds(2),
            1000);
    Faulty faulty = new Faulty(log, rnd);
    ChangelogWorker.Link[] links = new ChangelogWorker.Link[2];
    ChangelogWorker[] workers = new ChangelogWorker[2];
    int[] holder = new int[2];
    for (int p = 0; p < 2; p++) {
      links[p] = new ChangelogWorker.Link("ns", s, src.id(), x, dst.id(), p, mode);
      workers[p] =
          new ChangelogWorker(log, faulty, checkpoints, ROOT, CLOCK, links[p], "w0", settings);
    }
    int steps = 30 + rnd.nextInt(30);
    int crashes = 0;
    int ownerChanges = 0;
    for (int i = 0; i < steps; i++) {
      int p = rnd.nextInt(2);
      int op = rnd.nextInt(10);
      if (op < 4) {
        List<AppendRecord> recs = new ArrayList<>();
        for (int r = 0; r < 1 + rnd.nextInt(6); r++) {
          String key = rnd.nextInt(20) == 0 ? null : "k" + rnd.nextInt(5);
          String value = rnd.nextInt(4) == 0 ? null : "v" + i + "." + r;
          recs.add(AppendRecord.of(key, value).toPartition(p));
        }
        await(log.append("ns", s, recs));
      } else if (op < 8) {
        try {
          await(workers[p].poll());
        } catch (Exception e) {
          // A crash inside the pass; the next one starts over from the lease.
        }
      } else if (op == 8) {
        crashes++;
        workers[p] =
            new ChangelogWorker(
                log, faulty, checkpoints, ROOT, CLOCK, links[p], "w" + holder[p], settings);
      } else {
        ownerChanges++;
        SKEW.addAndGet(2_100); // the old holder's lease expires
        holder[p]++;
        workers[p] =
            new ChangelogWorker(
                log, faulty, checkpoints, ROOT, CLOCK, links[p], "w" + holder[p], settings);
        if (rnd.nextBoolean()) {
          corruptNewestCheckpoint(checkpoints, workers[p]);
        }
      }
    }
    // The faults stop; each partition catches up with the worker it has (whose last pass may have
    // failed, and whose lease may have lapsed meanwhile) or with a fresh one.
    faulty.off = true;
    for (int p = 0; p < 2; p++) {
      ChangelogWorker w =
          rnd.nextBoolean()
              ? workers[p]
              : new ChangelogWorker(
                  log, checkpoints, ROOT, CLOCK, links[p], "w" + holder[p], settings);
      int idle = 0;
      for (int round = 0; round < 2_000 && idle < 2; round++) {
        ChangelogWorker.Pass pass = await(w.poll());
        idle = pass.caughtUp() && pass.sourceRecords() == 0 ? idle + 1 : 0;
      }
      assertThat(idle).as("the worker catches up").isEqualTo(2);
      assertThat(changes(log, x, p))
          .as(
              "partition %d mode %s crashes %d owner changes %d faults %d/%d",
              p, mode, crashes, ownerChanges, faulty.dropsBefore, faulty.dropsAfter)
          .isEqualTo(reference(readAll(log, s, p), mode));
    }
  }

  private static void corruptNewestCheckpoint(InMemoryObjectStore store, ChangelogWorker w)
      throws Exception {
    var page = await(store.list(w.prefix(), "", 1000));
    if (!page.objects().isEmpty()) {
      String key = page.objects().get(page.objects().size() - 1).key();
      byte[] bytes = await(store.get(key));
      bytes[bytes.length / 2] ^= 0x5a;
      await(store.put(key, bytes));
    }
  }

  private static List<FetchedRecord> readAll(Log log, String stream, int p) throws Exception {
    List<FetchedRecord> out = new ArrayList<>();
    long next = 0;
    while (true) {
      FetchResult r = await(log.fetch("ns", stream, p, next, 1 << 20, Duration.ZERO));
      for (FetchedRecord rec : r.records()) {
        if (rec.offset() >= next) {
          out.add(rec);
        }
      }
      if (r.nextOffset() >= r.highWatermark() || r.records().isEmpty()) {
        return out;
      }
      next = r.nextOffset();
    }
  }

  /** One change as compared: kind, key, value, source offset. */
  private record Change(String kind, String key, String value, long sourceOffset) {}

  private static List<Change> changes(Log log, String stream, int p) throws Exception {
    List<Change> out = new ArrayList<>();
    for (FetchedRecord r : readAll(log, stream, p)) {
      out.add(
          new Change(
              header(r, ChangeRecords.ROW_KIND),
              r.keyAsString(),
              r.valueAsString(),
              Long.parseLong(header(r, ChangeRecords.SOURCE_OFFSET))));
    }
    return out;
  }

  private static String header(FetchedRecord r, String name) {
    for (Header h : r.headers()) {
      if (h.key().equals(name)) {
        return new String(h.value(), StandardCharsets.US_ASCII);
      }
    }
    throw new AssertionError("no header " + name + " at offset " + r.offset());
  }

  /** The changelog computed directly from S's log, the definition of §8.1's row changes. */
  private static List<Change> reference(List<FetchedRecord> source, ChangelogMode mode) {
    Map<String, String> rows = new HashMap<>();
    List<Change> out = new ArrayList<>();
    for (FetchedRecord r : source) {
      String k = r.keyAsString();
      if (k == null) {
        continue;
      }
      String v = r.valueAsString();
      String before = rows.get(k);
      boolean had = rows.containsKey(k);
      if (v == null) {
        if (had) {
          out.add(new Change("-D", k, mode == ChangelogMode.FULL ? before : null, r.offset()));
          rows.remove(k);
        }
        continue;
      }
      if (mode == ChangelogMode.UPSERT) {
        out.add(new Change("+U", k, v, r.offset()));
      } else if (had) {
        out.add(new Change("-U", k, before, r.offset()));
        out.add(new Change("+U", k, v, r.offset()));
      } else {
        out.add(new Change("+I", k, v, r.offset()));
      }
      rows.put(k, v);
    }
    return out;
  }
}
