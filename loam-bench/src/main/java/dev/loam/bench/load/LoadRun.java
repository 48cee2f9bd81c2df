package dev.loam.bench.load;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.ReadStats;
import dev.loam.api.StreamSpec;
import dev.loam.api.WriterStats;
import dev.loam.core.runtime.SystemDrivers;
import dev.loam.grpc.GrpcSettings;
import dev.loam.grpc.LoamGrpcServer;
import dev.loam.http.LoamHttpServer;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ObjectStores;
import dev.loam.store.express.ExpressObjectStore;
import dev.loam.store.fs.FileSystemObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.wal.DurabilityClass;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One run of one scenario: starts one node (embedded metastore) or N nodes (one Ratis voter each)
 * on fresh temp storage, loads them, measures, stops them.
 */
final class LoadRun {
  private static final String NS = "bench";
  private static final String STREAM = "load";

  /** Histograms hold microseconds up to 10 minutes, 3 significant digits. */
  private static final long MAX_MICROS = 600_000_000L;

  private final BenchConfig c;
  private final GatewaySecurity security;
  private final Recorder ack = new Recorder(MAX_MICROS, 3);
  private final Recorder ackUncorrected = new Recorder(MAX_MICROS, 3);
  private final Recorder e2e = new Recorder(MAX_MICROS, 3);
  private final LongAdder ackedRecordsInWindow = new LongAdder();
  private final LongAdder ackedBytesInWindow = new LongAdder();
  private final LongAdder ackedRecordsTotal = new LongAdder();
  private final LongAdder consumedTotal = new LongAdder();
  private final LongAdder appendsFailed = new LongAdder();
  private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
  private final ExecutorService httpClientPool = SystemDrivers.ioPool("loam-bench-http-client", 4);

  /** With {@code --transport grpc}: each node's server and client, closed after the run. */
  private final List<Runnable> grpcParts = new ArrayList<>();

  private volatile boolean producing = true;
  private volatile boolean consuming = true;
  private long measureStart;
  private long measureEnd;

  LoadRun(BenchConfig c) {
    this(c, GatewaySecurity.NONE);
  }

  /**
   * A run whose Kafka gateways ({@code --transport kafka}) are secured as {@code security} says.
   */
  LoadRun(BenchConfig c, GatewaySecurity security) {
    this.c = c;
    this.security = security;
  }

  /** The outcome of a run: figures for the JSON plus the histograms for plots. */
  record Result(Map<String, Object> figures, Histogram ack, Histogram e2e) {}

  Result run() throws Exception {
    Path tmp = Files.createTempDirectory("loam-bench-");
    ScheduledThreadPoolExecutor delays = new ScheduledThreadPoolExecutor(1, daemon("delay"));
    delays.setRemoveOnCancelPolicy(true);
    ExecutorService io = SystemDrivers.ioPool("loam-bench-store-io", 4);
    InstantSource clock = SystemDrivers.clock();
    StoreContext ctx = new StoreContext(clock, io, Map.of());
    List<LatencyInjectingStore> stores = new ArrayList<>();
    List<ObjectStore> toClose = new ArrayList<>();
    try {
      String uri = c.store() != null ? c.store() : tmp.resolve("objects").toUri().toString();
      ObjectStore base = ObjectStores.open(uri, ctx);
      toClose.add(base);
      LatencyInjectingStore standard =
          new LatencyInjectingStore(base, c.latency(), delays, c.seed(), false);
      stores.add(standard);
      ObjectStore express = null;
      if (c.durabilityClass() == DurabilityClass.EXPRESS) {
        List<ObjectStore> zones = new ArrayList<>();
        for (int z = 0; z < 3; z++) {
          ObjectStore zs =
              c.zoneStore().equals("mem")
                  ? new InMemoryObjectStore(clock)
                  : new FileSystemObjectStore(tmp.resolve("zone-" + z), io, clock);
          toClose.add(zs);
          LatencyInjectingStore w =
              new LatencyInjectingStore(zs, c.latency(), delays, c.seed() + 1 + z, false);
          stores.add(w);
          zones.add(w);
        }
        express = new ExpressObjectStore(zones, 0);
        toClose.add(express);
      }
      NodeSettings settings = NodeSettings.defaults();
      if (c.flushMillis() > 0) {
        settings = settings.withFlushInterval(Duration.ofMillis(c.flushMillis()));
      }
      if (c.walObjectBytes() > 0 || c.objectsInFlight() > 0) {
        settings =
            settings.withWalObjects(
                c.walObjectBytes() > 0 ? c.walObjectBytes() : settings.walObjectMaxBytes(),
                c.objectsInFlight() > 0 ? c.objectsInFlight() : settings.maxObjectsInFlight());
      }
      if (c.commitsInFlight() > 0) {
        settings = settings.withCommitsInFlight(c.commitsInFlight());
      }
      List<LoamNode> nodes = new ArrayList<>();
      List<RatisMetastore> metastores = new ArrayList<>();
      List<LoamHttpServer> servers = new ArrayList<>();
      ExecutorService metaExec = SystemDrivers.ioPool("loam-bench-meta", 4);
      try {
        Map<String, String> voters = c.nodes() > 1 ? loopbackVoters(c.nodes()) : Map.of();
        // Every replica is up before any node registers: a registration needs a majority.
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < c.nodes(); i++) {
          String id = c.nodes() == 1 ? "bench-node" : "bench-node-" + i;
          ids.add(id);
          if (c.nodes() > 1) {
            metastores.add(
                RatisMetastore.start(
                    RatisSettings.builder(id, voters, tmp.resolve(id).resolve("meta")).build(),
                    MetaSettings.defaults(),
                    clock,
                    metaExec));
          }
        }
        for (int i = 0; i < c.nodes(); i++) {
          LoamNode.Builder b =
              LoamNode.builder()
                  .nodeId(ids.get(i))
                  .dataDir(tmp.resolve(ids.get(i)))
                  .objectStore(standard)
                  .settings(settings);
          if (express != null) {
            b.expressStore(express);
          }
          if (c.nodes() > 1) {
            b.metastore(metastores.get(i));
          }
          if (c.durabilityClass() == DurabilityClass.QUORUM) {
            // Every node a journal replica over loopback gRPC, its Raft log on the temp disk.
            b.journalAddress("127.0.0.1:" + freeLoopbackPort())
                .journalDir(tmp.resolve(ids.get(i)).resolve("journal"));
          }
          nodes.add(b.start());
        }
        Result r =
            c.transport().equals("kafka")
                ? loadThroughKafka(nodes, stores)
                : load(nodes, transports(nodes, servers), stores);
        long flushes = 0;
        double putMillis = 0;
        double commitMillis = 0;
        double batches = 0;
        for (LoamNode n : nodes) {
          WriterStats ws = n.writerStats();
          flushes += ws.flushes();
          putMillis += ws.meanPutMillis() * ws.flushes();
          commitMillis += ws.meanCommitMillis() * ws.flushes();
          batches += ws.meanBatchesPerFlush() * ws.flushes();
        }
        long f = Math.max(1, flushes);
        r.figures().put("mean_put_ms_whole_run", putMillis / f);
        r.figures().put("mean_commit_ms_whole_run", commitMillis / f);
        r.figures().put("mean_batches_per_wal_object", batches / f);
        return r;
      } finally {
        for (LoamHttpServer h : servers) {
          h.close();
        }
        for (int i = grpcParts.size() - 1; i >= 0; i--) {
          grpcParts.get(i).run();
        }
        grpcParts.clear();
        for (LoamNode n : nodes) {
          n.close();
        }
        for (RatisMetastore m : metastores) {
          m.close();
        }
        metaExec.shutdownNow();
      }
    } finally {
      for (int i = toClose.size() - 1; i >= 0; i--) {
        toClose.get(i).close();
      }
      delays.shutdownNow();
      io.shutdownNow();
      httpClientPool.shutdownNow();
      deleteTree(tmp);
    }
  }

  /**
   * The kafka transport: a Kafka gateway on each node and the {@link KafkaRun} workload (the Kafka
   * Java client's producers and consumers, as {@code --vs-kafka} drives the broker) through them,
   * on a topic of the bench namespace.
   */
  private Result loadThroughKafka(List<LoamNode> nodes, List<LatencyInjectingStore> stores)
      throws Exception {
    try (GatewayTarget gateways =
        new GatewayTarget(nodes, stores, NS, c.durabilityClass(), security)) {
      Result r = new KafkaRun(c, gateways, STREAM, false).run();
      Map<String, Object> f = r.figures();
      f.put("kafka_security", security.describe());
      // The broker's split of the CPU and its fsync switch mean nothing here: the gateways, nodes
      // and clients are all this process. Its allocations are the whole process's, as the
      // other transports count them.
      f.remove("broker_cpu_cores_busy");
      f.remove("client_cpu_cores_busy");
      f.remove("kafka_fsync_per_append");
      f.put("allocated_bytes_per_record", f.remove("client_allocated_bytes_per_record"));
      return r;
    }
  }

  /** One transport per node; with HTTP, starts each node's server (added to {@code servers}). */
  private List<BenchTransport> transports(List<LoamNode> nodes, List<LoamHttpServer> servers) {
    List<BenchTransport> ts = new ArrayList<>();
    for (LoamNode n : nodes) {
      if (c.transport().equals("grpc")) {
        LoamGrpcServer g =
            LoamGrpcServer.start(
                n,
                // Messages as large as the other transports' fetches (1 MiB).
                GrpcSettings.builder().host("127.0.0.1").port(0).subscribeBytes(1 << 20).build());
        grpcParts.add(g::close);
        GrpcTransport t = new GrpcTransport("127.0.0.1:" + g.port());
        grpcParts.add(t::close);
        ts.add(t);
      } else if (c.transport().equals("http")) {
        LoamHttpServer h = LoamHttpServer.builder().node(n).host("127.0.0.1").port(0).start();
        servers.add(h);
        ts.add(BenchTransport.http("http://127.0.0.1:" + h.port(), httpClientPool));
      } else {
        ts.add(BenchTransport.embedded(n.log()));
      }
    }
    return ts;
  }

  private Result load(
      List<LoamNode> nodes, List<BenchTransport> transports, List<LatencyInjectingStore> stores)
      throws Exception {
    Log first = nodes.get(0).log();
    first.createNamespace(NS).join();
    StreamSpec spec =
        StreamSpec.standard(c.partitions())
            .withClass(Durability.fromWireName(c.durabilityClass().wireName()))
            .withCompression(dev.loam.api.Compression.fromWireName(c.compression()));
    long createBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        first.createStream(NS, STREAM, spec).join();
        break;
      } catch (CompletionException e) {
        // A quorum stream needs a placed journal, placed once the nodes' first placement passes
        // advertised their journal endpoints: retried for a few seconds after start.
        if (c.durabilityClass() != DurabilityClass.QUORUM || System.nanoTime() > createBy) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
    // Every replica must know the stream before its node appends to it.
    for (LoamNode n : nodes) {
      awaitStream(n.log());
    }

    long start = System.nanoTime();
    measureStart = start + c.warmup().toNanos();
    measureEnd = measureStart + c.duration().toNanos();

    List<Thread> consumers = new ArrayList<>();
    for (int i = 0; i < c.consumers(); i++) {
      int id = i;
      BenchTransport log = transports.get(i % transports.size());
      Thread t = new Thread(() -> consume(log, id), "loam-bench-consumer-" + i);
      t.setDaemon(true);
      consumers.add(t);
      t.start();
    }
    List<Thread> producers = new ArrayList<>();
    List<Semaphore> windows = new ArrayList<>();
    for (int i = 0; i < c.producers(); i++) {
      int id = i;
      Semaphore window = new Semaphore(c.inFlight());
      windows.add(window);
      BenchTransport log = transports.get(i % transports.size());
      Thread t = new Thread(() -> produce(log, id, start, window), "loam-bench-producer-" + i);
      t.setDaemon(true);
      producers.add(t);
      t.start();
    }

    parkUntil(measureStart);
    Snapshot s0 = snapshot(nodes, stores);
    parkUntil(measureEnd);
    Snapshot s1 = snapshot(nodes, stores);
    producing = false;
    for (Thread t : producers) {
      t.join(60_000);
    }
    for (Semaphore w : windows) {
      w.tryAcquire(c.inFlight(), 60, TimeUnit.SECONDS);
    }
    // Let consumers catch up with everything acknowledged (bounded).
    long catchUp = System.nanoTime() + 15_000_000_000L;
    while (c.consumers() > 0
        && consumedTotal.sum() < ackedRecordsTotal.sum()
        && System.nanoTime() < catchUp) {
      LockSupport.parkNanos(10_000_000L);
    }
    consuming = false;
    for (Thread t : consumers) {
      t.join(5_000);
    }
    Histogram ackH = ack.getIntervalHistogram();
    Histogram e2eH = e2e.getIntervalHistogram();
    return new Result(
        figures(s0, s1, ackH, ackUncorrected.getIntervalHistogram(), e2eH), ackH, e2eH);
  }

  private void produce(BenchTransport log, int id, long start, Semaphore window) {
    RecordGenerator gen = new RecordGenerator(c, id);
    int per = c.recordsPerAppend();
    boolean fixed = c.rate() > 0;
    double perProducer = (double) c.rate() / c.producers();
    long interval = fixed ? (long) (1e9 * per / perProducer) : 0;
    long intervalMicros = Math.max(1, interval / 1000);
    boolean expectedInterval = c.coCorrection().equals("expected-interval");
    long k = 0;
    while (producing && firstFailure.get() == null) {
      long intended;
      if (fixed) {
        intended = start + k * interval;
        k++;
        parkUntil(intended);
        if (!producing) {
          break;
        }
      } else {
        intended = 0;
      }
      try {
        window.acquire();
      } catch (InterruptedException e) {
        return;
      }
      List<AppendRecord> batch = new ArrayList<>(per);
      long sent = System.nanoTime();
      long bytes = 0;
      for (int i = 0; i < per; i++) {
        byte[] v = gen.value(sent);
        byte[] key = gen.key();
        bytes += v.length + (key == null ? 0 : key.length);
        batch.add(AppendRecord.of(key, v));
      }
      long from = fixed ? intended : sent;
      long batchBytes = bytes;
      CompletableFuture<Void> f = log.append(NS, STREAM, batch);
      f.whenComplete(
          (r, e) -> {
            long done = System.nanoTime();
            window.release();
            if (e != null) {
              appendsFailed.increment();
              firstFailure.compareAndSet(null, e);
              return;
            }
            ackedRecordsTotal.add(per);
            if (done >= measureStart && done < measureEnd) {
              ackedRecordsInWindow.add(per);
              ackedBytesInWindow.add(batchBytes);
            }
            if (from >= measureStart && from < measureEnd) {
              long us = Math.min(MAX_MICROS, (done - from) / 1000);
              long raw = Math.min(MAX_MICROS, (done - sent) / 1000);
              if (fixed && expectedInterval) {
                ack.recordValueWithExpectedInterval(raw, intervalMicros);
              } else {
                ack.recordValue(us);
              }
              ackUncorrected.recordValue(raw);
            }
          });
    }
  }

  private record Fetched(int partition, BenchTransport.Fetched result, Throwable error) {}

  private void consume(BenchTransport log, int id) {
    List<Integer> mine = new ArrayList<>();
    for (int p = id; p < c.partitions(); p += c.consumers()) {
      mine.add(p);
    }
    LinkedBlockingQueue<Fetched> done = new LinkedBlockingQueue<>();
    Map<Integer, Long> offsets = new HashMap<>();
    for (int p : mine) {
      offsets.put(p, 0L);
      fetch(log, p, 0, done);
    }
    while (consuming) {
      Fetched f;
      try {
        f = done.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (f == null) {
        continue;
      }
      long offset = offsets.get(f.partition());
      if (f.error() != null) {
        LockSupport.parkNanos(10_000_000L);
      } else {
        long now = System.nanoTime();
        for (byte[] value : f.result().values()) {
          long sent = RecordGenerator.sentNanos(value);
          if (sent >= measureStart && sent < measureEnd) {
            e2e.recordValue(Math.min(MAX_MICROS, Math.max(0, (now - sent) / 1000)));
          }
        }
        consumedTotal.add(f.result().values().size());
        offset = f.result().nextOffset();
        offsets.put(f.partition(), offset);
      }
      if (consuming) {
        fetch(log, f.partition(), offset, done);
      }
    }
  }

  private void fetch(BenchTransport log, int p, long offset, LinkedBlockingQueue<Fetched> done) {
    log.fetch(NS, STREAM, p, offset, 1 << 20, Duration.ofMillis(500))
        .whenComplete((r, e) -> done.add(new Fetched(p, r, e)));
  }

  /** Counters at one instant. */
  record Snapshot(
      long nanos,
      long cpuNanos,
      Map<Long, Long> allocated,
      LatencyInjectingStore.Counts store,
      long commits,
      long walObjects,
      long logicalPuts,
      ThreadCpu.Sample threadCpu,
      long[] reads) {}

  static Snapshot snapshot(List<LoamNode> nodes, List<LatencyInjectingStore> stores) {
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    Map<Long, Long> alloc = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        alloc.put(ids[i], bytes[i]);
      }
    }
    LatencyInjectingStore.Counts counts = LatencyInjectingStore.Counts.ZERO;
    for (LatencyInjectingStore s : stores) {
      counts = counts.plus(s.counts());
    }
    long commits = 0;
    long flushes = 0;
    long puts = 0;
    for (LoamNode n : nodes) {
      WriterStats ws = n.writerStats();
      commits += ws.commits();
      flushes += ws.flushes();
      puts += ws.puts();
    }
    long[] reads = new long[4];
    for (LoamNode n : nodes) {
      ReadStats rs = n.readStats();
      reads[0] += rs.tailHits();
      reads[1] += rs.walReadAheadHits();
      reads[2] += rs.objectGets();
      reads[3] += rs.objectGetBytes();
    }
    return new Snapshot(
        System.nanoTime(),
        os.getProcessCpuTime(),
        alloc,
        counts,
        commits,
        flushes,
        puts,
        ThreadCpu.sample(),
        reads);
  }

  private Map<String, Object> figures(
      Snapshot a, Snapshot b, Histogram ackH, Histogram rawH, Histogram e2eH) {
    double secs = (b.nanos() - a.nanos()) / 1e9;
    long records = ackedRecordsInWindow.sum();
    long bytes = ackedBytesInWindow.sum();
    long allocated = 0;
    for (Map.Entry<Long, Long> e : b.allocated().entrySet()) {
      allocated += e.getValue() - a.allocated().getOrDefault(e.getKey(), 0L);
    }
    double cpuSecs = (b.cpuNanos() - a.cpuNanos()) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("measured_s", secs);
    m.put("records", records);
    m.put("records_per_s", records / secs);
    m.put("mb_per_s", bytes / 1e6 / secs);
    m.put("ack_latency_ms", percentiles(ackH));
    m.put("ack_latency_uncorrected_ms", percentiles(rawH));
    m.put("e2e_latency_ms", percentiles(e2eH));
    m.put("cpu_s_per_gb", bytes == 0 ? Double.NaN : cpuSecs / (bytes / 1e9));
    m.put("cpu_us_per_record", records == 0 ? Double.NaN : cpuSecs * 1e6 / records);
    m.put("cpu_cores_busy", cpuSecs / secs);
    m.put("allocated_bytes_per_record", records == 0 ? Double.NaN : (double) allocated / records);
    m.put(
        "allocated_bytes_method",
        "sum over live threads of com.sun.management.ThreadMXBean.getThreadAllocatedBytes, end"
            + " minus start of the window (whole process: node, store, producers, consumers;"
            + " threads that exit inside the window are missed)");
    m.putAll(nodeFigures(a, b, records));
    m.put("appends_failed", appendsFailed.sum());
    m.put("records_acked_whole_run", ackedRecordsTotal.sum());
    m.put("records_consumed", consumedTotal.sum());
    Throwable f = firstFailure.get();
    m.put("first_failure", f == null ? null : String.valueOf(f));
    return m;
  }

  /**
   * What the nodes and the store did between two snapshots, {@code records} acked: CPU by thread
   * group, store calls, reads by tier, metastore proposals and WAL objects.
   */
  static Map<String, Object> nodeFigures(Snapshot a, Snapshot b, long records) {
    double secs = (b.nanos() - a.nanos()) / 1e9;
    LatencyInjectingStore.Counts st = b.store().minus(a.store());
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Double> byGroup = ThreadCpu.between(a.threadCpu(), b.threadCpu());
    m.put(
        "node_cpu_us_per_record", records == 0 ? Double.NaN : byGroup.get("node") * 1e6 / records);
    Map<String, Object> perRecord = new LinkedHashMap<>();
    byGroup.forEach((g, v) -> perRecord.put(g, records == 0 ? Double.NaN : v * 1e6 / records));
    m.put("cpu_us_per_record_by_group", perRecord);
    m.put(
        "cpu_groups",
        "node: the node's Java threads (scheduler, metastore, Ratis, HTTP server, Kafka"
            + " gateway); store: the filesystem store's I/O pool and the latency injector (kernel"
            + " write+fsync time lands here); bench: producers, consumers, clients (HTTP, Kafka),"
            + " main; jvm: process CPU minus"
            + " all Java threads (GC, JIT, VM, threads that exited in the window); <g>_user:"
            + " user-mode part");
    m.put("store_puts_per_s", st.puts() / secs);
    m.put("store_gets_per_s", st.gets() / secs);
    m.put("store_other_calls_per_s", st.others() / secs);
    m.put("store_mean_bytes_per_put", st.puts() == 0 ? 0.0 : (double) st.putBytes() / st.puts());
    m.put("store_get_mb_per_s", st.getBytes() / 1e6 / secs);
    m.put("read_tail_hits_per_s", (b.reads()[0] - a.reads()[0]) / secs);
    m.put("read_wal_read_ahead_hits_per_s", (b.reads()[1] - a.reads()[1]) / secs);
    m.put("read_object_gets_per_s", (b.reads()[2] - a.reads()[2]) / secs);
    m.put("read_object_get_mb_per_s", (b.reads()[3] - a.reads()[3]) / 1e6 / secs);
    m.put("metastore_proposals_per_s", (b.commits() - a.commits()) / secs);
    m.put("wal_objects_per_s", (b.walObjects() - a.walObjects()) / secs);
    return m;
  }

  static Map<String, Object> percentiles(Histogram h) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("count", h.getTotalCount());
    m.put("p50", h.getValueAtPercentile(50) / 1000.0);
    m.put("p90", h.getValueAtPercentile(90) / 1000.0);
    m.put("p99", h.getValueAtPercentile(99) / 1000.0);
    m.put("p99_9", h.getValueAtPercentile(99.9) / 1000.0);
    m.put("max", h.getMaxValue() / 1000.0);
    m.put("mean", h.getTotalCount() == 0 ? 0.0 : h.getMean() / 1000.0);
    return m;
  }

  /** Waits until this node's metastore replica has applied the bench stream. */
  private static void awaitStream(Log log) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        log.describeStream(NS, STREAM).get(10, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the bench stream never reached every node", e);
        }
        Thread.sleep(20);
      }
    }
  }

  /** One loopback gRPC address per Ratis voter, on ports free right now. */
  private static Map<String, String> loopbackVoters(int n) throws IOException {
    Map<String, String> voters = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        voters.put("bench-node-" + i, "127.0.0.1:" + s.getLocalPort());
      }
    }
    return voters;
  }

  /** A loopback port free right now, for a node's journal server. */
  private static int freeLoopbackPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static void parkUntil(long deadline) {
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      LockSupport.parkNanos(left);
    }
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, "loam-bench-" + name);
      t.setDaemon(true);
      return t;
    };
  }

  static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // best effort
                }
              });
    } catch (IOException e) {
      // best effort
    }
  }
}
