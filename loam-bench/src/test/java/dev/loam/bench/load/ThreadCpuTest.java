package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The CPU split of a run: thread groups by name, and the command-line switch of Kafka fsync. */
class ThreadCpuTest {
  @Test
  void threadsAreGroupedByName() {
    assertThat(ThreadCpu.group("loam-bench-producer-0")).isEqualTo("bench");
    assertThat(ThreadCpu.group("loam-bench-consumer-3")).isEqualTo("bench");
    assertThat(ThreadCpu.group("main")).isEqualTo("bench");
    assertThat(ThreadCpu.group("HttpClient-1-SelectorManager")).isEqualTo("bench");
    assertThat(ThreadCpu.group("loam-bench-store-io-2")).isEqualTo("store");
    assertThat(ThreadCpu.group("loam-bench-node")).isEqualTo("node");
    assertThat(ThreadCpu.group("loam-http-1-1")).isEqualTo("node");
    assertThat(ThreadCpu.group("grpc-default-executor-0")).isEqualTo("node");
    assertThat(ThreadCpu.group("loam-kafka-2-1")).isEqualTo("node");
    assertThat(ThreadCpu.group("loam-bench-kafka-producer-0")).isEqualTo("bench");
    assertThat(ThreadCpu.group("loam-bench-kafka-consumer-1")).isEqualTo("bench");
    assertThat(ThreadCpu.group("kafka-admin-client-thread | loam-bench-admin")).isEqualTo("bench");
  }

  @Test
  void aBusyThreadShowsUpInItsGroup() throws Exception {
    ThreadCpu.Sample a = ThreadCpu.sample();
    AtomicLong sink = new AtomicLong();
    Thread t =
        new Thread(
            () -> {
              long end = System.nanoTime() + 200_000_000L;
              long x = 0;
              while (System.nanoTime() < end) {
                x += Long.numberOfTrailingZeros(x + 1);
              }
              sink.set(x);
            },
            "loam-bench-producer-test");
    t.start();
    t.join();
    // The thread has ended: sample while a twin runs, so its time is attributed by name.
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch sampled = new CountDownLatch(1);
    Thread live =
        new Thread(
            () -> {
              // Spin for 100 ms of this thread's own CPU, not of wall time: on a machine shared
              // with other work, wall time says nothing about how much CPU the thread got.
              var mx = java.lang.management.ManagementFactory.getThreadMXBean();
              while (mx.getCurrentThreadCpuTime() < 100_000_000L) {
                sink.incrementAndGet();
              }
              spun.countDown();
              try {
                sampled.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "loam-bench-store-io-test");
    live.setDaemon(true);
    live.start();
    spun.await();
    ThreadCpu.Sample b = ThreadCpu.sample();
    sampled.countDown();
    live.join();
    Map<String, Double> cpu = ThreadCpu.between(a, b);
    assertThat(cpu.keySet())
        .containsExactly("node", "node_user", "store", "store_user", "bench", "bench_user", "jvm");
    assertThat(cpu.get("store")).as("the live busy thread's CPU").isGreaterThan(0.05);
    assertThat(cpu.get("store_user")).isLessThanOrEqualTo(cpu.get("store") + 1e-9);
  }

  @Test
  void kafkaFsyncNeedsVsKafka() {
    assertThat(BenchConfig.parse(new String[] {"--vs-kafka", "--kafka-fsync"}).kafkaFsync())
        .isTrue();
    assertThat(BenchConfig.parse(new String[] {"--vs-kafka"}).kafkaFsync()).isFalse();
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--kafka-fsync"}))
        .hasMessage("--kafka-fsync: needs --vs-kafka");
  }
}
