package dev.loam.api;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.testing.FaultyMetastore;
import dev.loam.testing.FaultyObjectStore;
import dev.loam.testing.TestCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Adversarial model check of one node's write and read path (docs/design/write-path.md and
 * read-path.md, stream-engine.txt §3): random appends (plain and idempotent, with deliberate
 * retries of the same producer sequence), fetches and long-polls, scripted PUT and commit faults,
 * and crashes with a restart on the same store and metastore. After every run the whole log is read
 * back and checked against what each append was told:
 *
 * <ul>
 *   <li>every acknowledged append is at exactly its acknowledged offsets with its bytes;
 *   <li>each partition holds dense offsets {@code 0..hw-1}, and offsets a fetch saw are never
 *       reused for other records;
 *   <li>no record is stored twice (so an idempotent retry never duplicates a producer sequence);
 *   <li>an append that failed with a definite kind (UNAVAILABLE, FENCED, CONFLICT, NOT_FOUND,
 *       INVALID) appended nothing, one that failed OUTCOME_UNKNOWN appended all or nothing per
 *       partition;
 *   <li>fetches return consecutive offsets from the requested one;
 *   <li>appends acknowledged as new records of one partition got offsets in submission order;
 *   <li>a node's writer gives verdicts in submission order: no append of a durability class is
 *       acknowledged before every older append of that class on that node has its verdict (an
 *       object answered while an older one's outcome is unknown holds its acknowledgement);
 *   <li>every future of a live node completes (no lost verdicts or lost long-poll wakeups).
 * </ul>
 *
 * <p>Bursts of appends behind a slow PUT make the writer commit several objects in one proposal (a
 * CommitWalGroup), so the scripted commit faults also hit groups. Pipelines of appends over
 * rotating partitions, with the first commit answered late, applied late with its answer lost,
 * refused or lost, put several proposals in flight at once when the scenario allows more than one
 * (the writer may pipeline only proposals over disjoint partitions).
 */
class WritePathPropertyTest {
  private static final String NS = "ns";
  private static final String NODE = "n1";
  private static final Duration BUDGET = Duration.ofMillis(300);

  /** A live node owes every verdict long before this (budget 300 ms plus one backoff). */
  private static final long VERDICT_MS = 10_000;

  /** After a crash the old node's futures get this long in total before counting as hung. */
  private static final long CRASH_GRACE_MS = 200;

  private static final Set<Kind> DEFINITE =
      EnumSet.of(Kind.UNAVAILABLE, Kind.FENCED, Kind.CONFLICT, Kind.NOT_FOUND, Kind.INVALID);

  // ------------------------------------------------------------------ the operations

  sealed interface Op {}

  /** Per record a raw partition 0..2 (taken modulo the stream's partitions) or -1: node chooses. */
  record Append(int stream, List<Integer> partitions, boolean keyed, boolean await) implements Op {}

  /** retryBack 0: the producer's next batch; n > 0: resend its n-th latest batch unchanged. */
  record IdemAppend(int producer, int records, int retryBack, boolean await) implements Op {}

  /** The producer re-initialises with the next epoch and sequence 0 (as a Kafka producer does). */
  record BumpEpoch(int producer) implements Op {}

  record Fetch(int stream, int partition, int offsetPercent, int maxBytes) implements Op {}

  record LongPoll(int stream, int partition) implements Op {}

  /** The next PUT and CommitWal answers; everything after them succeeds. */
  record Faults(List<FaultyObjectStore.Fault> puts, List<FaultyMetastore.Fault> commits)
      implements Op {}

  /** Long enough to outlast one object's commit budget: 0 store down, 1..3 a commit fault kind. */
  record Outage(int kind) implements Op {}

  record Settle() implements Op {}

  /**
   * Appends not awaited, one WAL object each (a flush interval apart), the first object's PUT slow:
   * the younger objects are written first and commit with it as one group. {@code outage} as in
   * {@link Outage} (0 none; 4: one commit applied with its answer lost, then refusals past the
   * budget), scripted as the burst starts, so it hits the group.
   */
  record Burst(int stream, int appends, int outage) implements Op {}

  /**
   * Appends not awaited, one WAL object each (a flush interval apart), each item a plain append to
   * raw partition 0..2 or (3, 4) the next batch of producer 0 or 1; the first commit proposal gets
   * {@code fault}: 0 none, 1 answered late, 2 applied late with its answer lost at once, 3 refused
   * before logging, 4 lost before logging. Later proposals overtake it.
   */
  record Pipeline(int stream, List<Integer> items, int fault) implements Op {}

  record Crash() implements Op {}

  /**
   * A second process with the same node id starts while this one keeps running (a zombie): the
   * zombie's later commits are refused, so its appends fail FENCED or with an unknown outcome.
   */
  record Takeover() implements Op {}

  /** An append through the zombie of the last takeover, if any (must fail, append nothing). */
  record ZombieAppend(int stream) implements Op {}

  /**
   * An append the node must refuse: 0 unknown stream (NOT_FOUND), 1 partition out of range, 2
   * idempotent across partitions, 3 no records (INVALID).
   */
  record BadAppend(int kind, int stream) implements Op {}

  record StreamDef(int partitions, boolean express) {}

  record Scenario(
      List<StreamDef> streams,
      boolean smallObjects,
      int objectsInFlight,
      int commitsInFlight,
      long tailCacheBytes,
      List<Op> ops) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Integer> raw = Arbitraries.integers().between(0, 2);
    Arbitrary<Boolean> bool = Arbitraries.of(false, true);
    Arbitrary<List<StreamDef>> streams =
        Combinators.combine(Arbitraries.integers().between(1, 3), bool)
            .as(StreamDef::new)
            .list()
            .ofMinSize(1)
            .ofMaxSize(3);
    Arbitrary<Op> append =
        Combinators.combine(
                raw,
                Arbitraries.frequency(
                        Tuple.of(1, -1), Tuple.of(3, 0), Tuple.of(3, 1), Tuple.of(3, 2))
                    .list()
                    .ofMinSize(1)
                    .ofMaxSize(5),
                bool,
                bool)
            .as(Append::new);
    Arbitrary<Op> idem =
        Combinators.combine(
                Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(1, 5),
                Arbitraries.frequency(
                    Tuple.of(6, 0), Tuple.of(3, 1), Tuple.of(2, 2), Tuple.of(1, 3), Tuple.of(1, 7)),
                bool)
            .as(IdemAppend::new);
    Arbitrary<Op> bump = Arbitraries.integers().between(0, 1).map(BumpEpoch::new);
    Arbitrary<Op> fetch =
        Combinators.combine(
                raw, raw, Arbitraries.integers().between(0, 100), Arbitraries.of(1, 200, 1 << 20))
            .as(Fetch::new);
    Arbitrary<Op> longPoll = Combinators.combine(raw, raw).as(LongPoll::new);
    Arbitrary<Op> faults =
        Combinators.combine(
                Arbitraries.of(FaultyObjectStore.Fault.class).list().ofMaxSize(3),
                Arbitraries.of(FaultyMetastore.Fault.class).list().ofMaxSize(3))
            .as(Faults::new);
    Arbitrary<Op> outage = Arbitraries.integers().between(0, 3).map(Outage::new);
    Arbitrary<Op> bad =
        Combinators.combine(Arbitraries.integers().between(0, 3), raw).as(BadAppend::new);
    Arbitrary<Op> op =
        Arbitraries.frequencyOf(
            Tuple.of(30, append),
            Tuple.of(22, idem),
            Tuple.of(3, bump),
            Tuple.of(8, fetch),
            Tuple.of(4, longPoll),
            Tuple.of(14, faults),
            Tuple.of(2, outage),
            Tuple.of(6, Arbitraries.just(new Settle())),
            Tuple.of(
                6,
                Combinators.combine(
                        raw,
                        Arbitraries.integers().between(2, 5),
                        Arbitraries.frequency(
                            Tuple.of(4, 0),
                            Tuple.of(1, 1),
                            Tuple.of(1, 2),
                            Tuple.of(1, 3),
                            Tuple.of(2, 4)))
                    .as(Burst::new)),
            Tuple.of(
                6,
                Combinators.combine(
                        raw,
                        Arbitraries.integers().between(0, 4).list().ofMinSize(2).ofMaxSize(6),
                        Arbitraries.integers().between(0, 4))
                    .as(Pipeline::new)),
            Tuple.of(3, Arbitraries.just(new Crash())),
            Tuple.of(2, Arbitraries.just(new Takeover())),
            Tuple.of(2, raw.map(ZombieAppend::new)),
            Tuple.of(3, bad));
    return Combinators.combine(
            streams,
            bool,
            Arbitraries.of(1, 4),
            Arbitraries.of(1, 4),
            Arbitraries.of(0L, 2048L, 64L << 20),
            op.list().ofMinSize(4).ofMaxSize(30))
        .as(Scenario::new);
  }

  @Property(tries = 100)
  void acknowledgedAppendsAreDurableDenseAndNeverDuplicated(@ForAll("scenarios") Scenario sc)
      throws Exception {
    try (Run run = new Run(sc)) {
      for (Op op : sc.ops()) {
        run.apply(op);
      }
      run.settle();
      run.verify();
      run.verifyVerdictOrder();
      Statistics.label("commit proposals unanswered at once")
          .collect(run.meta.mostUnanswered() > 1 ? ">1" : "1");
      for (int size : run.meta.proposalSizes()) {
        Statistics.label("objects per commit proposal").collect(size == 1 ? "1" : ">1");
      }
      for (Attempt a : run.attempts) {
        Statistics.label("verdict")
            .collect(
                a.verdict
                    + (a.producer == null ? "" : " idempotent")
                    + (a.result != null && a.result.duplicate() ? " duplicate" : "")
                    + (a.error instanceof LoamException le ? " " + le.kind() : ""));
      }
    }
  }

  // ------------------------------------------------------------------ the model

  enum Verdict {
    PENDING,
    ACKED,
    DEFINITE,
    UNKNOWN,
    HUNG
  }

  /** One call of append, and what it was told. */
  static final class Attempt {
    final int id;
    final int incarnation;
    final String stream;
    final List<AppendRecord> records;
    final ProducerIdentity producer;
    final String payload;
    final Kind expectedRefusal;

    /** Submitted through a node already superseded by a takeover: must not be acknowledged. */
    boolean fencedAtSubmit;

    CompletableFuture<AppendResult> future;
    // When the future completed, on the run's clock of verdicts (0: not yet).
    volatile long verdictSeq;
    Verdict verdict = Verdict.PENDING;
    AppendResult result;
    Throwable error;

    Attempt(
        int id,
        int incarnation,
        String stream,
        List<AppendRecord> records,
        ProducerIdentity producer,
        String payload,
        Kind expectedRefusal) {
      this.id = id;
      this.incarnation = incarnation;
      this.stream = stream;
      this.records = records;
      this.producer = producer;
      this.payload = payload;
      this.expectedRefusal = expectedRefusal;
    }

    @Override
    public String toString() {
      return "append#"
          + id
          + "(node"
          + incarnation
          + " "
          + stream
          + " payload="
          + payload
          + " records="
          + records.size()
          + (producer == null ? "" : " " + producer)
          + ") -> "
          + verdict
          + (result != null ? " " + result.positions() + " dup=" + result.duplicate() : "")
          + (error != null ? " " + error : "");
    }
  }

  record Batch(short epoch, int sequence, List<AppendRecord> records, String payload) {}

  static final class Producer {
    final long id;
    final int stream;
    short epoch;
    int nextSequence;
    final List<Batch> history = new ArrayList<>();

    Producer(long id, int stream) {
      this.id = id;
      this.stream = stream;
    }
  }

  record Poll(int incarnation, String stream, int partition, long offset, CompletableFuture<?> f) {}

  record Loc(String stream, int partition, long offset) {}

  /** One run of a scenario on a fresh cluster. */
  private static final class Run implements AutoCloseable {
    final Scenario sc;
    final Path dir;
    final TestCluster cluster;
    final FaultyObjectStore store;
    // Express objects go to three in-memory zones that live as long as the scenario.
    final dev.loam.spi.store.ObjectStore express =
        new dev.loam.store.express.ExpressObjectStore(
            java.util.List.of(
                new dev.loam.store.memory.InMemoryObjectStore(java.time.InstantSource.system()),
                new dev.loam.store.memory.InMemoryObjectStore(java.time.InstantSource.system()),
                new dev.loam.store.memory.InMemoryObjectStore(java.time.InstantSource.system())),
            0);
    final FaultyMetastore meta;
    final NodeSettings settings;
    final List<String> streamNames = new ArrayList<>();
    final Producer[] producers = new Producer[2];
    final List<Attempt> attempts = new ArrayList<>();
    final List<Poll> polls = new ArrayList<>();
    final Map<Loc, String> observed = new HashMap<>();
    final List<String> trace = new ArrayList<>();
    final java.util.concurrent.atomic.AtomicLong verdicts =
        new java.util.concurrent.atomic.AtomicLong();
    LoamNode node;
    LoamNode zombie;
    int zombieIncarnation;
    final Set<Integer> crashed = new java.util.HashSet<>();
    int incarnation;
    int nextId;

    Run(Scenario sc) throws Exception {
      this.sc = sc;
      this.dir = Files.createTempDirectory("loam-wpp");
      this.cluster = new TestCluster(dir.resolve("meta"));
      this.store = new FaultyObjectStore(cluster.memoryStore);
      this.meta = new FaultyMetastore(cluster.embeddedMeta);
      NodeSettings.Builder b =
          TestCluster.FAST
              .withCommitBudget(BUDGET)
              .withTailCacheBytes(sc.tailCacheBytes())
              .toBuilder();
      b.maxObjectsInFlight(sc.objectsInFlight());
      b.maxCommitsInFlight(sc.commitsInFlight());
      if (sc.smallObjects()) {
        b.walObjectMaxBytes(1024);
      }
      this.settings = b.build();
      this.node = startNode();
      Log log = node.log();
      log.createNamespace(NS).get(VERDICT_MS, TimeUnit.MILLISECONDS);
      for (int i = 0; i < sc.streams().size(); i++) {
        StreamDef d = sc.streams().get(i);
        String name = "s" + i;
        StreamSpec spec = StreamSpec.standard(d.partitions());
        if (d.express()) {
          spec = spec.withClass(Durability.EXPRESS);
        }
        log.createStream(NS, name, spec).get(VERDICT_MS, TimeUnit.MILLISECONDS);
        streamNames.add(name);
      }
      for (int p = 0; p < producers.length; p++) {
        producers[p] = new Producer(7000 + p, p % sc.streams().size());
      }
    }

    /**
     * Nodes are built directly (not through {@link TestCluster#start}) because TestCluster closes
     * every node it started, and closing a crashed node waits out its close timeout (see report).
     */
    LoamNode startNode() {
      return LoamNode.builder()
          .nodeId(NODE)
          .settings(settings)
          .objectStore(store)
          .expressStore(express)
          .metastore(meta)
          .start();
    }

    Log log() {
      return node.log();
    }

    int partitions(int stream) {
      return sc.streams().get(stream).partitions();
    }

    void note(String s) {
      trace.add(s);
    }

    AssertionError fail(String what) {
      StringBuilder b = new StringBuilder(what);
      b.append("\n-- scenario: ").append(sc);
      b.append("\n-- trace:");
      trace.forEach(t -> b.append("\n  ").append(t));
      b.append("\n-- attempts:");
      attempts.forEach(a -> b.append("\n  ").append(a));
      return new AssertionError(b.toString());
    }

    void check(boolean ok, String what) {
      if (!ok) {
        throw fail(what);
      }
    }

    // ---------------------------------------------------------------- applying operations

    void apply(Op op) throws Exception {
      note("op " + op);
      if (op instanceof Append a) {
        append(a);
      } else if (op instanceof IdemAppend a) {
        idemAppend(a);
      } else if (op instanceof BumpEpoch b) {
        Producer p = producers[b.producer()];
        p.epoch++;
        p.nextSequence = 0;
      } else if (op instanceof Fetch f) {
        fetch(f);
      } else if (op instanceof LongPoll l) {
        longPoll(l);
      } else if (op instanceof Faults f) {
        store.script(f.puts());
        meta.script(f.commits(), FaultyMetastore.Fault.NONE);
      } else if (op instanceof Outage o) {
        if (o.kind() == 0) {
          store.script(Collections.nCopies(6, FaultyObjectStore.Fault.UNAVAILABLE));
        } else {
          commitOutage(o.kind());
        }
      } else if (op instanceof Burst b) {
        if (b.outage() > 0) {
          commitOutage(b.outage());
        }
        store.script(List.of(FaultyObjectStore.Fault.SLOW));
        for (int i = 0; i < b.appends(); i++) {
          append(new Append(b.stream(), List.of(i % 3), false, false));
          Thread.sleep(8); // past the 5 ms flush interval: the next append opens a new object
        }
      } else if (op instanceof Settle) {
        settle();
      } else if (op instanceof Takeover) {
        if (zombie != null) {
          // A closed node ends its long-polls (UNAVAILABLE) and fails what is left, like a
          // crashed one: its futures get the same latitude.
          crashed.add(zombieIncarnation);
          zombie.close();
        }
        zombie = node;
        zombieIncarnation = incarnation;
        incarnation++;
        node = startNode();
        note("took over as incarnation " + incarnation + " epoch=" + node.epoch());
      } else if (op instanceof ZombieAppend z) {
        if (zombie != null) {
          int st = z.stream() % streamNames.size();
          String payload = "a" + nextId;
          Attempt a =
              new Attempt(
                  nextId++,
                  zombieIncarnation,
                  streamNames.get(st),
                  List.of(record(payload, 0, false).toPartition(0)),
                  null,
                  payload,
                  null);
          a.fencedAtSubmit = true;
          attempts.add(a);
          a.future = zombie.log().append(NS, a.stream, a.records);
          resolve(a, System.currentTimeMillis() + VERDICT_MS);
        }
      } else if (op instanceof Pipeline pl) {
        pipeline(pl);
      } else if (op instanceof Crash) {
        node.crash();
        crashed.add(incarnation);
        incarnation++;
        node = startNode();
        note("restarted as incarnation " + incarnation + " epoch=" + node.epoch());
      } else if (op instanceof BadAppend b) {
        badAppend(b);
      }
    }

    private AppendRecord record(String payload, int j, boolean keyed) {
      String value = payload + "." + j;
      return AppendRecord.of(keyed ? "k" + value : null, value)
          .withHeaders(List.of(new Header("p", payload.getBytes(StandardCharsets.UTF_8))));
    }

    private Attempt submit(
        String stream,
        List<AppendRecord> records,
        ProducerIdentity producer,
        String payload,
        Kind expectedRefusal,
        boolean await)
        throws Exception {
      Attempt a =
          new Attempt(nextId++, incarnation, stream, records, producer, payload, expectedRefusal);
      attempts.add(a);
      a.future =
          producer == null
              ? log().append(NS, stream, records)
              : log().append(NS, stream, records, producer);
      a.future.whenComplete((r, e) -> a.verdictSeq = verdicts.incrementAndGet());
      if (await) {
        resolve(a, System.currentTimeMillis() + VERDICT_MS);
      }
      return a;
    }

    /** Commit faults long enough to outlast one object's budget; see {@link Outage}, Burst. */
    void commitOutage(int kind) {
      if (kind == 4) {
        List<FaultyMetastore.Fault> faults = new ArrayList<>();
        faults.add(FaultyMetastore.Fault.APPLIED_BUT_ANSWER_LOST);
        faults.addAll(Collections.nCopies(8, FaultyMetastore.Fault.UNAVAILABLE_BEFORE_LOGGING));
        meta.script(faults, FaultyMetastore.Fault.NONE);
        return;
      }
      FaultyMetastore.Fault f =
          switch (kind) {
            case 1 -> FaultyMetastore.Fault.UNAVAILABLE_BEFORE_LOGGING;
            case 2 -> FaultyMetastore.Fault.UNKNOWN_NOT_APPLIED;
            default -> FaultyMetastore.Fault.APPLIED_BUT_ANSWER_LOST;
          };
      meta.script(Collections.nCopies(6, f), FaultyMetastore.Fault.NONE);
    }

    void pipeline(Pipeline op) throws Exception {
      FaultyMetastore.Fault first =
          switch (op.fault()) {
            case 1 -> FaultyMetastore.Fault.ANSWER_LATE;
            case 2 -> FaultyMetastore.Fault.APPLIED_LATE_ANSWER_LOST;
            case 3 -> FaultyMetastore.Fault.UNAVAILABLE_BEFORE_LOGGING;
            case 4 -> FaultyMetastore.Fault.UNKNOWN_NOT_APPLIED;
            default -> FaultyMetastore.Fault.NONE;
          };
      meta.script(List.of(first), FaultyMetastore.Fault.NONE);
      for (int item : op.items()) {
        if (item < 3) {
          append(new Append(op.stream(), List.of(item), false, false));
        } else {
          idemAppend(new IdemAppend(item - 3, 1 + item, 0, false));
        }
        Thread.sleep(8); // past the 5 ms flush interval: the next append opens a new object
      }
    }

    void append(Append op) throws Exception {
      int s = op.stream() % streamNames.size();
      String payload = "a" + nextId;
      List<AppendRecord> records = new ArrayList<>();
      for (int j = 0; j < op.partitions().size(); j++) {
        AppendRecord r = record(payload, j, op.keyed());
        int raw = op.partitions().get(j);
        records.add(raw < 0 ? r : r.toPartition(raw % partitions(s)));
      }
      submit(streamNames.get(s), records, null, payload, null, op.await());
    }

    void idemAppend(IdemAppend op) throws Exception {
      Producer p = producers[op.producer()];
      String stream = streamNames.get(p.stream);
      int partition = op.producer() % partitions(p.stream);
      if (op.retryBack() > 0 && p.history.size() >= op.retryBack()) {
        Batch b = p.history.get(p.history.size() - op.retryBack());
        submit(
            stream,
            b.records(),
            new ProducerIdentity(p.id, b.epoch(), b.sequence()),
            b.payload(),
            null,
            op.await());
        return;
      }
      String payload = "a" + nextId;
      List<AppendRecord> records = new ArrayList<>();
      for (int j = 0; j < op.records(); j++) {
        records.add(record(payload, j, j % 2 == 0).toPartition(partition));
      }
      Batch b = new Batch(p.epoch, p.nextSequence, List.copyOf(records), payload);
      p.history.add(b);
      p.nextSequence += op.records();
      submit(
          stream,
          b.records(),
          new ProducerIdentity(p.id, b.epoch(), b.sequence()),
          payload,
          null,
          op.await());
    }

    void badAppend(BadAppend op) throws Exception {
      int s = op.stream() % streamNames.size();
      String payload = "a" + nextId;
      switch (op.kind()) {
        case 0 ->
            submit(
                "missing", List.of(record(payload, 0, false)), null, payload, Kind.NOT_FOUND, true);
        case 1 ->
            submit(
                streamNames.get(s),
                List.of(record(payload, 0, false), record(payload, 1, false).toPartition(3)),
                null,
                payload,
                Kind.INVALID,
                true);
        case 2 -> {
          if (partitions(s) < 2) {
            submit(streamNames.get(s), List.of(), null, payload, Kind.INVALID, true);
            return;
          }
          submit(
              streamNames.get(s),
              List.of(
                  record(payload, 0, false).toPartition(0),
                  record(payload, 1, false).toPartition(1)),
              new ProducerIdentity(9999, (short) 0, 0),
              payload,
              Kind.INVALID,
              true);
        }
        default -> submit(streamNames.get(s), List.of(), null, payload, Kind.INVALID, true);
      }
    }

    long highWatermark(String stream, int partition) throws Exception {
      StreamDescription d = log().describeStream(NS, stream).get(VERDICT_MS, TimeUnit.MILLISECONDS);
      return d.partitions().stream()
          .filter(b -> b.partition() == partition)
          .findFirst()
          .orElseThrow(() -> fail("no bounds for " + stream + "/" + partition))
          .highWatermark();
    }

    void fetch(Fetch op) throws Exception {
      int s = op.stream() % streamNames.size();
      String stream = streamNames.get(s);
      int partition = op.partition() % partitions(s);
      long hw = highWatermark(stream, partition);
      long offset = hw * op.offsetPercent() / 100;
      FetchResult r =
          await(
              log().fetch(NS, stream, partition, offset, op.maxBytes(), Duration.ZERO),
              "fetch " + stream + "/" + partition + "@" + offset);
      checkFetch(stream, partition, offset, r, offset < hw);
    }

    void longPoll(LongPoll op) throws Exception {
      int s = op.stream() % streamNames.size();
      String stream = streamNames.get(s);
      int partition = op.partition() % partitions(s);
      long hw = highWatermark(stream, partition);
      polls.add(
          new Poll(
              incarnation,
              stream,
              partition,
              hw,
              log().fetch(NS, stream, partition, hw, 1 << 20, Duration.ofMillis(200))));
    }

    void checkFetch(String stream, int partition, long offset, FetchResult r, boolean nonEmpty) {
      String what = "fetch " + stream + "/" + partition + "@" + offset;
      check(!nonEmpty || !r.records().isEmpty(), what + " below the high watermark was empty");
      long expect = offset;
      for (FetchedRecord rec : r.records()) {
        check(rec.partition() == partition, what + " returned partition " + rec.partition());
        check(
            rec.offset() == expect,
            what + " returned offset " + rec.offset() + " where " + expect + " was due");
        String prev = observed.put(new Loc(stream, partition, rec.offset()), rec.valueAsString());
        check(
            prev == null || prev.equals(rec.valueAsString()),
            what
                + " offset "
                + rec.offset()
                + " was "
                + prev
                + " before, now "
                + rec.valueAsString());
        expect++;
      }
      check(
          r.nextOffset() == expect,
          what + " nextOffset " + r.nextOffset() + " after the last offset " + (expect - 1));
      note(what + " -> " + r.records().size() + " records, hw=" + r.highWatermark());
    }

    <T> T await(CompletableFuture<T> f, String what) throws Exception {
      try {
        return f.get(VERDICT_MS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw fail(what + " did not complete within " + VERDICT_MS + " ms");
      } catch (ExecutionException e) {
        throw fail(what + " failed: " + e.getCause());
      }
    }

    // ---------------------------------------------------------------- verdicts

    /** Waits for the attempt's verdict; a live node must give one, a crashed one may not. */
    void resolve(Attempt a, long deadline) {
      if (a.verdict != Verdict.PENDING) {
        return;
      }
      boolean crashed = this.crashed.contains(a.incarnation);
      boolean superseded = a.incarnation < incarnation;
      long wait = Math.max(0, deadline - System.currentTimeMillis());
      try {
        a.result = a.future.get(wait, TimeUnit.MILLISECONDS);
        a.verdict = Verdict.ACKED;
        check(a.expectedRefusal == null, a + " was acknowledged but must be refused");
        check(!a.fencedAtSubmit, a + " was acknowledged by a node fenced before the append");
        check(
            a.result.positions().size() == a.records.size(),
            a + " acknowledged " + a.result.positions().size() + " positions");
        return;
      } catch (TimeoutException e) {
        if (crashed) {
          a.verdict = Verdict.HUNG;
          return;
        }
        throw fail(a + " got no verdict within " + VERDICT_MS + " ms (future never completed)");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw fail("interrupted");
      } catch (ExecutionException e) {
        a.error = e.getCause();
      }
      if (!(a.error instanceof LoamException le)) {
        throw fail(a + " failed with a non-Loam exception");
      }
      if (a.expectedRefusal != null) {
        check(le.kind() == a.expectedRefusal, a + " must fail " + a.expectedRefusal);
        a.verdict = Verdict.DEFINITE;
        return;
      }
      Set<Kind> allowed = EnumSet.of(Kind.UNAVAILABLE, Kind.OUTCOME_UNKNOWN);
      if (a.producer != null) {
        // Out-of-order sequence, fenced producer epoch.
        allowed.add(Kind.CONFLICT);
        allowed.add(Kind.FENCED);
      }
      if (superseded) {
        // The restarted node's registration fences the old one.
        allowed.add(Kind.FENCED);
      }
      check(allowed.contains(le.kind()), a + " failed with kind " + le.kind());
      a.verdict = le.kind() == Kind.OUTCOME_UNKNOWN ? Verdict.UNKNOWN : Verdict.DEFINITE;
      check(a.verdict != Verdict.DEFINITE || DEFINITE.contains(le.kind()), "kind");
    }

    /** Every pending append and long-poll gets its verdict. */
    void settle() throws Exception {
      long crashDeadline = System.currentTimeMillis() + CRASH_GRACE_MS;
      for (Attempt a : attempts) {
        boolean crashed = this.crashed.contains(a.incarnation);
        resolve(a, crashed ? crashDeadline : System.currentTimeMillis() + VERDICT_MS);
      }
      for (Poll p : polls) {
        boolean crashed = this.crashed.contains(p.incarnation());
        long wait = crashed ? Math.max(0, crashDeadline - System.currentTimeMillis()) : VERDICT_MS;
        String what = "long-poll " + p.stream() + "/" + p.partition() + "@" + p.offset();
        try {
          FetchResult r = (FetchResult) p.f().get(wait, TimeUnit.MILLISECONDS);
          checkFetch(p.stream(), p.partition(), p.offset(), r, false);
        } catch (TimeoutException e) {
          check(crashed, what + " never completed (lost wakeup or lost timer)");
          note(what + " of a crashed node never completed");
        } catch (ExecutionException e) {
          check(crashed, what + " failed: " + e.getCause());
          note(what + " of a crashed node failed: " + e.getCause());
        }
      }
      polls.clear();
    }

    // ---------------------------------------------------------------- the final check

    void verify() throws Exception {
      Map<String, Loc> where = new HashMap<>();
      Map<Loc, FetchedRecord> log = new HashMap<>();
      for (int s = 0; s < streamNames.size(); s++) {
        String stream = streamNames.get(s);
        for (int p = 0; p < partitions(s); p++) {
          long hw = highWatermark(stream, p);
          List<FetchedRecord> all = readAll(stream, p, hw);
          check(
              all.size() == hw,
              stream + "/" + p + " has high watermark " + hw + " but " + all.size() + " records");
          for (int i = 0; i < all.size(); i++) {
            FetchedRecord r = all.get(i);
            check(
                r.offset() == i, stream + "/" + p + " offset " + r.offset() + " at position " + i);
            Loc loc = new Loc(stream, p, r.offset());
            log.put(loc, r);
            String v = r.valueAsString();
            Loc first = where.put(v, loc);
            check(
                first == null,
                "record "
                    + v
                    + " is stored twice, at "
                    + first
                    + " and "
                    + loc
                    + producerOf(v)
                    + " (a retry created a duplicate)");
            String seen = observed.get(loc);
            check(
                seen == null || seen.equals(v),
                "offset " + loc + " was read as " + seen + " earlier but now holds " + v);
          }
        }
      }
      for (Map.Entry<Loc, String> e : observed.entrySet()) {
        check(log.containsKey(e.getKey()), "a fetch saw " + e + " but it is gone");
      }

      // Every stored record was sent, to that stream.
      Map<String, Attempt> sender = new HashMap<>();
      for (Attempt a : attempts) {
        for (AppendRecord r : a.records) {
          sender.putIfAbsent(new String(r.value(), StandardCharsets.UTF_8), a);
        }
      }
      for (Map.Entry<String, Loc> e : where.entrySet()) {
        Attempt a = sender.get(e.getKey());
        check(a != null, "stored record " + e.getKey() + " at " + e.getValue() + " was never sent");
        check(
            a.stream.equals(e.getValue().stream()),
            "record " + e.getKey() + " sent to " + a.stream + " is stored at " + e.getValue());
      }

      // Acknowledged appends are where they were told, with their bytes.
      for (Attempt a : attempts) {
        if (a.verdict != Verdict.ACKED) {
          continue;
        }
        for (int i = 0; i < a.records.size(); i++) {
          AppendRecord sent = a.records.get(i);
          AppendResult.RecordPosition pos = a.result.positions().get(i);
          Loc loc = new Loc(a.stream, pos.partition(), pos.offset());
          FetchedRecord got = log.get(loc);
          check(got != null, a + " record " + i + " acknowledged at " + loc + " is not there");
          check(
              Arrays.equals(got.value(), sent.value()),
              a + " record " + i + " acknowledged at " + loc + " but holds " + got.valueAsString());
          check(Arrays.equals(got.key(), sent.key()), a + " record " + i + " key differs");
          check(
              got.headers().size() == 1
                  && got.headers().get(0).key().equals("p")
                  && Arrays.equals(got.headers().get(0).value(), sent.headers().get(0).value()),
              a + " record " + i + " headers differ");
          check(
              sent.partition().isEmpty() || sent.partition().getAsInt() == pos.partition(),
              a + " record " + i + " asked for partition " + sent.partition());
        }
      }

      // Failed appends: definite kinds appended nothing; unknown ones all or nothing per partition.
      Map<String, List<Attempt>> byPayload = new LinkedHashMap<>();
      attempts.forEach(a -> byPayload.computeIfAbsent(a.payload, k -> new ArrayList<>()).add(a));
      for (List<Attempt> group : byPayload.values()) {
        if (group.stream().anyMatch(a -> a.verdict == Verdict.ACKED)) {
          continue;
        }
        boolean allDefinite = group.stream().allMatch(a -> a.verdict == Verdict.DEFINITE);
        Attempt a = group.get(0);
        Map<Integer, List<Boolean>> presentByPartition = new TreeMap<>();
        for (AppendRecord r : a.records) {
          String v = new String(r.value(), StandardCharsets.UTF_8);
          boolean present = where.containsKey(v);
          check(
              !(allDefinite && present),
              "record "
                  + v
                  + " of a definitely failed append is stored at "
                  + where.get(v)
                  + " "
                  + group);
          if (r.partition().isPresent()) {
            presentByPartition
                .computeIfAbsent(r.partition().getAsInt(), k -> new ArrayList<>())
                .add(present);
          }
        }
        for (List<Boolean> ps : presentByPartition.values()) {
          check(
              ps.stream().distinct().count() <= 1,
              "an append with unknown outcome was half committed in one partition " + group);
        }
      }

      // A node's new records of one partition get offsets in submission order.
      Map<String, List<long[]>> order = new HashMap<>();
      for (Attempt a : attempts) {
        if (a.verdict != Verdict.ACKED || a.result.duplicate()) {
          continue;
        }
        Map<Integer, Long> first = new TreeMap<>();
        for (AppendResult.RecordPosition pos : a.result.positions()) {
          first.merge(pos.partition(), pos.offset(), Math::min);
        }
        first.forEach(
            (p, off) ->
                order
                    .computeIfAbsent(a.stream + "/" + p, k -> new ArrayList<>())
                    .add(new long[] {a.id, off}));
      }
      for (Map.Entry<String, List<long[]>> e : order.entrySet()) {
        List<long[]> l = e.getValue();
        l.sort(Comparator.comparingLong(x -> x[0]));
        for (int i = 1; i < l.size(); i++) {
          check(
              l.get(i)[1] > l.get(i - 1)[1],
              e.getKey()
                  + ": append#"
                  + l.get(i)[0]
                  + " (offset "
                  + l.get(i)[1]
                  + ") was submitted after append#"
                  + l.get(i - 1)[0]
                  + " (offset "
                  + l.get(i - 1)[1]
                  + ") but got an earlier offset");
        }
      }
    }

    /**
     * No append is acknowledged before an older append of the same node and durability class has
     * its verdict. (Refusals the node gives before buffering complete at submission, so they are
     * never later than a younger append's verdict.)
     */
    void verifyVerdictOrder() {
      for (Attempt b : attempts) {
        if (b.verdict != Verdict.ACKED) {
          continue;
        }
        for (Attempt a : attempts) {
          if (a.id >= b.id
              || a.incarnation != b.incarnation
              || a.fencedAtSubmit != b.fencedAtSubmit
              || express(a) != express(b)) {
            continue;
          }
          check(
              a.verdictSeq != 0 && a.verdictSeq < b.verdictSeq,
              b + " was acknowledged before the older " + a + " had its verdict");
        }
      }
    }

    private boolean express(Attempt a) {
      int i = streamNames.indexOf(a.stream);
      return i >= 0 && sc.streams().get(i).express();
    }

    private String producerOf(String value) {
      return attempts.stream()
          .filter(a -> a.producer != null)
          .filter(
              a ->
                  a.records.stream()
                      .anyMatch(r -> new String(r.value(), StandardCharsets.UTF_8).equals(value)))
          .map(a -> " producer=" + a.producer)
          .findFirst()
          .orElse("");
    }

    List<FetchedRecord> readAll(String stream, int partition, long hw) throws Exception {
      List<FetchedRecord> out = new ArrayList<>();
      long offset = 0;
      while (offset < hw) {
        FetchResult r =
            await(
                log().fetch(NS, stream, partition, offset, 1 << 20, Duration.ZERO),
                "read " + stream + "/" + partition + "@" + offset);
        checkFetch(stream, partition, offset, r, true);
        out.addAll(r.records());
        offset = r.nextOffset();
      }
      return out;
    }

    @Override
    public void close() {
      try {
        if (zombie != null) {
          zombie.close();
        }
        node.close();
      } finally {
        cluster.close();
        try (Stream<Path> files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
