package dev.loam.bench.load;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One run of one scenario through the Kafka Java client against a {@link KafkaTarget} (the Apache
 * Kafka broker, or Loam's Kafka gateway): the same workload as {@link LoadRun} (same {@link
 * RecordGenerator}, producer threads, "appends" of {@code recordsPerAppend} records with at most
 * {@code inFlight} of them outstanding per producer, rate, partitions, consumers, warm-up and
 * window) on a fresh topic, deleted afterwards.
 *
 * <p>An append is {@code recordsPerAppend} {@code send()} calls sharing one send time; it is acked
 * when the last of its records is, which is what its ack latency measures (Loam acks a whole {@code
 * Log.append}). Each producer thread has its own {@link KafkaProducer}. Consumers assign the same
 * round-robin share of partitions as Loam's and poll from offset 0.
 */
final class KafkaRun {
  /** Producer settings beyond bootstrap and serializers; the rest are Kafka's defaults. */
  static final Map<String, Object> PRODUCER_SETTINGS =
      Map.of(
          ProducerConfig.ACKS_CONFIG,
          "all",
          ProducerConfig.LINGER_MS_CONFIG,
          5,
          ProducerConfig.BATCH_SIZE_CONFIG,
          1 << 20,
          ProducerConfig.COMPRESSION_TYPE_CONFIG,
          "none");

  private static final long MAX_MICROS = 600_000_000L;

  private final BenchConfig c;
  private final KafkaTarget broker;
  private final String topic;
  private final boolean fsync;
  private final Recorder ack = new Recorder(MAX_MICROS, 3);
  private final Recorder ackUncorrected = new Recorder(MAX_MICROS, 3);
  private final Recorder e2e = new Recorder(MAX_MICROS, 3);
  private final LongAdder ackedRecordsInWindow = new LongAdder();
  private final LongAdder ackedBytesInWindow = new LongAdder();
  private final LongAdder ackedRecordsTotal = new LongAdder();
  private final LongAdder consumedTotal = new LongAdder();
  private final LongAdder appendsFailed = new LongAdder();
  private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
  private volatile boolean producing = true;
  private volatile boolean consuming = true;
  private long measureStart;
  private long measureEnd;

  KafkaRun(BenchConfig c, KafkaTarget broker, String topic, boolean fsync) {
    this.c = c;
    this.broker = broker;
    this.topic = topic;
    this.fsync = fsync;
  }

  /** The settings of this side, for the report. */
  static Map<String, Object> setupJson(KafkaBroker broker, boolean fsync) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("broker", broker.toJson());
    m.put(
        "topic_flush",
        fsync
            ? "flush.messages=1: the broker fsyncs every append before acking (--kafka-fsync)"
            : "Kafka default: no fsync per write");
    m.put("client", "kafka-clients " + org.apache.kafka.common.utils.AppInfoParser.getVersion());
    m.put("producer", new java.util.TreeMap<>(PRODUCER_SETTINGS));
    m.put("producer_compression", "compression.type is each scenario's --compression");
    m.put(
        "producer_note",
        "Kafka defaults otherwise (idempotence on, max.in.flight 5, buffer.memory 32 MiB); one"
            + " KafkaProducer per producer thread; an append = records-per-append send() calls,"
            + " acked when its last record is");
    m.put(
        "consumer",
        "one KafkaConsumer per consumer thread, assign() of the same round-robin partitions,"
            + " from offset 0, poll(100 ms), fetch defaults (fetch.max.wait.ms 500,"
            + " max.partition.fetch.bytes 1 MiB)");
    m.put("topic", "fresh per run, partitions as the scenario, RF 1, deleted after the run");
    m.put("cpu", "bench JVM process CPU (producers, consumers, clients) + broker JVM process CPU");
    return m;
  }

  LoadRun.Result run() throws Exception {
    broker.createTopic(topic, c.partitions(), fsync);
    try {
      return load();
    } finally {
      try {
        broker.deleteTopic(topic);
      } catch (Exception e) {
        // best effort: the broker's temp dir goes at the end anyway
      }
    }
  }

  private LoadRun.Result load() throws Exception {
    List<KafkaProducer<byte[], byte[]>> clients = new ArrayList<>();
    for (int i = 0; i < c.producers(); i++) {
      Map<String, Object> conf = new HashMap<>(PRODUCER_SETTINGS);
      conf.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, c.compression());
      conf.putAll(broker.clientSettings());
      conf.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
      conf.put(ProducerConfig.CLIENT_ID_CONFIG, "loam-bench-producer-" + i);
      clients.add(new KafkaProducer<>(conf, new ByteArraySerializer(), new ByteArraySerializer()));
    }
    try {
      // Metadata first, so that the warm-up does not start with a metadata wait.
      for (KafkaProducer<byte[], byte[]> p : clients) {
        p.partitionsFor(topic);
      }
      long start = System.nanoTime();
      measureStart = start + c.warmup().toNanos();
      measureEnd = measureStart + c.duration().toNanos();

      List<Thread> consumers = new ArrayList<>();
      for (int i = 0; i < c.consumers(); i++) {
        int id = i;
        Thread t = new Thread(() -> consume(id), "loam-bench-kafka-consumer-" + i);
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
        KafkaProducer<byte[], byte[]> client = clients.get(i);
        Thread t =
            new Thread(() -> produce(client, id, start, window), "loam-bench-kafka-producer-" + i);
        t.setDaemon(true);
        producers.add(t);
        t.start();
      }

      LoadRun.parkUntil(measureStart);
      broker.markWindow();
      Snapshot s0 = snapshot();
      LoadRun.parkUntil(measureEnd);
      broker.markWindow();
      Snapshot s1 = snapshot();
      producing = false;
      for (Thread t : producers) {
        t.join(60_000);
      }
      for (Semaphore w : windows) {
        w.tryAcquire(c.inFlight(), 60, TimeUnit.SECONDS);
      }
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
      return new LoadRun.Result(
          figures(s0, s1, ackH, ackUncorrected.getIntervalHistogram(), e2eH), ackH, e2eH);
    } finally {
      for (KafkaProducer<byte[], byte[]> p : clients) {
        p.close(Duration.ofSeconds(10));
      }
    }
  }

  /** One append's records in flight: acked when the last one is. */
  private final class Append {
    final AtomicInteger remaining;
    final AtomicBoolean failed = new AtomicBoolean();
    final long sent;
    final long from;
    final long bytes;
    final Semaphore window;

    Append(int records, long sent, long from, long bytes, Semaphore window) {
      this.remaining = new AtomicInteger(records);
      this.sent = sent;
      this.from = from;
      this.bytes = bytes;
      this.window = window;
    }

    /**
     * Called once per record of the append, from the producer's I/O thread (or the producing thread
     * if {@code send} threw). A failed record fails the append, counted once.
     */
    void acked(Exception e, int records, boolean fixed, boolean expectedInterval, long intervalUs) {
      if (e != null && failed.compareAndSet(false, true)) {
        appendsFailed.increment();
        firstFailure.compareAndSet(null, e);
      }
      if (remaining.decrementAndGet() != 0) {
        return;
      }
      if (failed.get()) {
        window.release();
        return;
      }
      long done = System.nanoTime();
      window.release();
      ackedRecordsTotal.add(records);
      if (done >= measureStart && done < measureEnd) {
        ackedRecordsInWindow.add(records);
        ackedBytesInWindow.add(bytes);
      }
      if (from >= measureStart && from < measureEnd) {
        long us = Math.min(MAX_MICROS, (done - from) / 1000);
        long raw = Math.min(MAX_MICROS, (done - sent) / 1000);
        if (fixed && expectedInterval) {
          ack.recordValueWithExpectedInterval(raw, intervalUs);
        } else {
          ack.recordValue(us);
        }
        ackUncorrected.recordValue(raw);
      }
    }
  }

  private void produce(KafkaProducer<byte[], byte[]> client, int id, long start, Semaphore window) {
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
        LoadRun.parkUntil(intended);
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
      long sent = System.nanoTime();
      List<ProducerRecord<byte[], byte[]>> batch = new ArrayList<>(per);
      long bytes = 0;
      for (int i = 0; i < per; i++) {
        byte[] v = gen.value(sent);
        byte[] key = gen.key();
        bytes += v.length + (key == null ? 0 : key.length);
        batch.add(new ProducerRecord<>(topic, key, v));
      }
      Append a = new Append(per, sent, fixed ? intended : sent, bytes, window);
      for (ProducerRecord<byte[], byte[]> r : batch) {
        try {
          client.send(r, (md, e) -> a.acked(e, per, fixed, expectedInterval, intervalMicros));
        } catch (RuntimeException e) {
          a.acked(e, per, fixed, expectedInterval, intervalMicros);
        }
      }
    }
  }

  private void consume(int id) {
    List<TopicPartition> mine = new ArrayList<>();
    for (int p = id; p < c.partitions(); p += c.consumers()) {
      mine.add(new TopicPartition(topic, p));
    }
    if (mine.isEmpty()) {
      return;
    }
    Map<String, Object> conf = new HashMap<>();
    conf.putAll(broker.clientSettings());
    conf.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
    conf.put(ConsumerConfig.CLIENT_ID_CONFIG, "loam-bench-consumer-" + id);
    conf.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    conf.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(conf, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(mine);
      consumer.seekToBeginning(mine);
      while (consuming) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        long now = System.nanoTime();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          long sent = RecordGenerator.sentNanos(r.value());
          if (sent >= measureStart && sent < measureEnd) {
            e2e.recordValue(Math.min(MAX_MICROS, Math.max(0, (now - sent) / 1000)));
          }
        }
        consumedTotal.add(records.count());
      }
    } catch (RuntimeException e) {
      firstFailure.compareAndSet(null, e);
    }
  }

  private record Snapshot(long nanos, long cpuNanos, long brokerCpuNanos, Map<Long, Long> alloc) {}

  private Snapshot snapshot() {
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
    return new Snapshot(System.nanoTime(), os.getProcessCpuTime(), broker.cpuNanos(), alloc);
  }

  private Map<String, Object> figures(
      Snapshot a, Snapshot b, Histogram ackH, Histogram rawH, Histogram e2eH) {
    double secs = (b.nanos() - a.nanos()) / 1e9;
    long records = ackedRecordsInWindow.sum();
    long bytes = ackedBytesInWindow.sum();
    long allocated = 0;
    for (Map.Entry<Long, Long> e : b.alloc().entrySet()) {
      allocated += e.getValue() - a.alloc().getOrDefault(e.getKey(), 0L);
    }
    double clientCpu = (b.cpuNanos() - a.cpuNanos()) / 1e9;
    double brokerCpu =
        a.brokerCpuNanos() < 0 ? Double.NaN : (b.brokerCpuNanos() - a.brokerCpuNanos()) / 1e9;
    double cpuSecs = clientCpu + brokerCpu;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("measured_s", secs);
    m.put("records", records);
    m.put("records_per_s", records / secs);
    m.put("mb_per_s", bytes / 1e6 / secs);
    m.put("ack_latency_ms", LoadRun.percentiles(ackH));
    m.put("ack_latency_uncorrected_ms", LoadRun.percentiles(rawH));
    m.put("e2e_latency_ms", LoadRun.percentiles(e2eH));
    m.put("cpu_s_per_gb", bytes == 0 ? Double.NaN : cpuSecs / (bytes / 1e9));
    m.put("cpu_us_per_record", records == 0 ? Double.NaN : cpuSecs * 1e6 / records);
    m.put("cpu_cores_busy", cpuSecs / secs);
    m.put("kafka_fsync_per_append", fsync);
    m.put("broker_cpu_cores_busy", brokerCpu / secs);
    m.put("client_cpu_cores_busy", clientCpu / secs);
    m.put(
        "client_allocated_bytes_per_record",
        records == 0 ? Double.NaN : (double) allocated / records);
    m.putAll(broker.windowFigures(records));
    m.put("records_acked_whole_run", ackedRecordsTotal.sum());
    m.put("records_consumed", consumedTotal.sum());
    m.put("appends_failed", appendsFailed.sum());
    Throwable f = firstFailure.get();
    m.put("first_failure", f == null ? null : String.valueOf(f));
    return m;
  }
}
