package dev.loam.client;

import static dev.loam.client.LoamClient.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client against a real 3-node cluster in one JVM (Ratis replicas, LoamNodes, HTTP servers on
 * loopback), nodes in zones z1, z1, z2: zone-aware node choice measured by each node's own request
 * counters, the fallback for a zone without nodes, owner redirects followed or surfaced, a lost
 * answer to an idempotent produce retried on another node without a duplicate, read-your-writes
 * across nodes, and the typed errors of real problem answers.
 */
class LoamClientIT {
  static final String NS = "default";
  static final AtomicInteger STREAMS = new AtomicInteger();

  @TempDir static Path dir;
  static ZonedCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = ZonedCluster.start(dir, List.of("z1", "z1", "z2"), Duration.ofSeconds(10));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static List<String> bootstrap() {
    List<String> urls = new ArrayList<>();
    cluster.members.forEach(m -> urls.add(m.url()));
    return urls;
  }

  static LoamClient client(String zone) {
    return LoamClient.builder().bootstrap(bootstrap()).zone(zone).build();
  }

  static String newStream(LoamClient c, int partitions) {
    String name = "s" + STREAMS.incrementAndGet();
    join(c.createStream(NS, StreamSpec.of(name, partitions)));
    return name;
  }

  /**
   * Requests a node answered on {@code route} ({@code produce}: any status; {@code produce/200}:
   * that status) between two readings of its counters.
   */
  static long delta(Map<String, Long> before, Map<String, Long> after, String route) {
    long sum = 0;
    for (Map.Entry<String, Long> e : after.entrySet()) {
      if (e.getKey().equals(route) || e.getKey().startsWith(route + "/")) {
        sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
      }
    }
    return sum;
  }

  @Test
  void aClientInZoneZ2SendsItsTrafficOnlyToTheZ2Node() {
    List<Map<String, Long>> before = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      before.add(cluster.requests(i));
    }
    try (LoamClient c = client("z2")) {
      String s = newStream(c, 2);
      IdempotentProducer p = c.idempotentProducer();
      for (int i = 0; i < 10; i++) {
        join(p.send(NS, s, i % 2, List.of(ProduceRecord.of("k" + i, "v" + i))));
      }
      join(c.produce(NS, s, List.of(ProduceRecord.of("k", "plain").withPartition(0))));
      FetchResult f = join(c.fetch(NS, s, 0, 0, FetchOptions.defaults()));
      assertThat(f.records())
          .extracting(FetchedRecord::valueAsString)
          .containsExactly("v0", "v2", "v4", "v6", "v8", "plain");
      assertThat(join(c.offset(NS, s, 1, OffsetSpec.latest()))).isEqualTo(5);
      join(c.describeStream(NS, s));
      assertThat(c.currentNode()).isEqualTo(cluster.member(2).url());
    }
    List<String> apiRoutes =
        List.of(
            "stream_create", "produce", "producer_allocate", "fetch", "offsets", "stream_describe");
    Map<String, Long> z2 = cluster.requests(2);
    assertThat(delta(before.get(2), z2, "produce")).isEqualTo(11);
    assertThat(delta(before.get(2), z2, "fetch")).isEqualTo(1);
    assertThat(delta(before.get(2), z2, "stream_create")).isEqualTo(1);
    for (int i = 0; i < 2; i++) {
      Map<String, Long> after = cluster.requests(i);
      for (String route : apiRoutes) {
        assertThat(delta(before.get(i), after, route))
            .as("node %s (zone z1) answered %s for a z2 client", cluster.member(i).id, route)
            .isZero();
      }
      // At most the first discovery (bootstrap) reaches a z1 node.
      assertThat(delta(before.get(i), after, "cluster_nodes")).isLessThanOrEqualTo(2);
    }
  }

  @Test
  void aZoneWithoutNodesFallsBackToAnyLiveNode() {
    try (LoamClient c = client("z9")) {
      join(c.createNamespace("fallback"));
      assertThat(join(c.listStreams("fallback"))).isEmpty();
      join(c.createStream("fallback", StreamSpec.of("x", 1)));
      assertThat(join(c.listStreams("fallback"))).extracting(StreamInfo::name).containsExactly("x");
      String s = newStream(c, 1);
      ProduceResult r = join(c.produce(NS, s, List.of(ProduceRecord.of("k", "v"))));
      assertThat(r.positions()).containsExactly(new ProduceResult.Position(0, 0));
      assertThat(bootstrap()).contains(c.currentNode());
      assertThat(join(c.nodes("z9"))).isEmpty();
      assertThat(join(c.nodes(null))).extracting(NodeInfo::zone).containsExactly("z1", "z1", "z2");
      assertThat(join(c.nodes("z1")))
          .extracting(NodeInfo::address)
          .containsExactly(cluster.member(0).url(), cluster.member(1).url());
    }
  }

  /** Waits until the stream is open on an owner and returns the owner's member index. */
  static int ownerOf(LoamClient c, String s) {
    String[] owner = new String[1];
    ZonedCluster.await(
        () -> {
          StreamInfo d = join(c.describeStream(NS, s));
          owner[0] =
              d.owner()
                  .filter(o -> o.state().equalsIgnoreCase("open"))
                  .map(StreamOwner::nodeId)
                  .orElse(null);
          return owner[0] != null;
        },
        Duration.ofSeconds(30),
        "stream " + s + " has an open owner");
    for (int i = 0; i < 3; i++) {
      if (cluster.member(i).id.equals(owner[0])) {
        return i;
      }
    }
    throw new AssertionError("unknown owner " + owner[0]);
  }

  @Test
  void anOwnerBoundCallThroughANonOwnerFollowsTheRedirectOrThrowsNotOwner() {
    String s;
    int owner;
    try (LoamClient any = client("z1")) {
      s = newStream(any, 1);
      owner = ownerOf(any, s);
    }
    // A client whose zone holds no owner: z2 if the owner is in z1, else z1.
    String zone = cluster.member(owner).zone.equals("z2") ? "z1" : "z2";
    Map<String, Long> ownerBefore = cluster.requests(owner);
    try (LoamClient c = client(zone)) {
      StreamInfo updated = join(c.updateStream(NS, s, 3_600_000L, null, null));
      assertThat(updated.retentionMs()).isEqualTo(3_600_000L);
      assertThat(c.currentNode()).isNotEqualTo(cluster.member(owner).url());
      assertThat(delta(ownerBefore, cluster.requests(owner), "stream_update")).isEqualTo(1);

      LoamClient direct = c.withFollowRedirects(false);
      assertThatThrownBy(() -> join(direct.updateStream(NS, s, 7_200_000L, null, null)))
          .isInstanceOfSatisfying(
              NotOwnerException.class,
              e -> {
                assertThat(e.ownerNodeId()).isEqualTo(cluster.member(owner).id);
                assertThat(e.ownerAddress()).isEqualTo(cluster.member(owner).url());
                assertThat(e.status()).isEqualTo(307);
                assertThat(e.node()).contains(c.currentNode());
              });
      // The refused call was not forwarded: this node's replica shows the first change only
      // (it may apply the owner's command a moment after the owner answered).
      ZonedCluster.await(
          () -> join(c.describeStream(NS, s)).retentionMs() == 3_600_000L,
          Duration.ofSeconds(10),
          "the first update, and only it, is visible");

      // Consumer leases and commits are owner-bound too, and follow the redirect.
      ConsumerState lease =
          join(c.leaseConsumer(NS, "billing", s, 0, "worker-1", Duration.ofSeconds(30)));
      assertThat(lease.generation()).isEqualTo(1);
      assertThat(join(c.commitOffset(NS, "billing", s, 0, lease.generation(), 0)).committedOffset())
          .hasValue(0);
      // Read from this client's (non-owner) node: its replica applies the owner's commit a
      // moment later (a commit answer carries no consistency token).
      ZonedCluster.await(
          () -> join(c.consumerState(NS, "billing", s, 0)).committedOffset().isPresent(),
          Duration.ofSeconds(10),
          "the commit is visible on the client's node");
      assertThat(join(c.consumerState(NS, "billing", s, 0)).committedOffset()).hasValue(0);
    }
    // Zero hops allowed: the redirect itself is over the limit.
    try (LoamClient limited =
        LoamClient.builder()
            .bootstrap(bootstrap())
            .zone(zone)
            .maxRedirects(0)
            .maxAttempts(1)
            .build()) {
      assertThatThrownBy(() -> join(limited.updateStream(NS, s, 60_000L, null, null)))
          .isInstanceOfSatisfying(
              RedirectLimitException.class,
              e -> assertThat(e.hops()).last().asString().startsWith(cluster.member(owner).url()));
    }
    try (LoamClient c = client(zone)) {
      // Growing and deleting the stream go through the redirect as well.
      assertThat(join(c.addPartitions(NS, s, 2)).partitions()).isEqualTo(2);
      assertThat(delta(ownerBefore, cluster.requests(owner), "stream_add_partitions/200"))
          .isEqualTo(1);
      join(c.deleteStream(NS, s));
      assertThat(delta(ownerBefore, cluster.requests(owner), "stream_delete/204")).isEqualTo(1);
    }
  }

  @Test
  void aLostAnswerToAnIdempotentProduceIsRetriedOnAnotherNodeWithoutADuplicate() {
    String s;
    try (LoamClient setup = client("z1")) {
      s = newStream(setup, 1);
    }
    DroppingProxy z2proxy = cluster.member(2).proxy;
    Map<String, Long> z2Before = cluster.requests(2);
    try (LoamClient c = client("z2")) {
      IdempotentProducer p = c.idempotentProducer();
      ProduceResult first = join(p.send(NS, s, 0, List.of(ProduceRecord.of("k", "a"))));
      assertThat(first.duplicate()).isFalse();
      int droppedBefore = z2proxy.dropped();
      z2proxy.dropNextAnswerTo("POST /v1/namespaces/" + NS + "/streams/" + s + "/records");
      ProduceResult second =
          join(p.send(NS, s, 0, List.of(ProduceRecord.of("k", "b"), ProduceRecord.of("k", "c"))));
      assertThat(z2proxy.dropped()).isEqualTo(droppedBefore + 1);
      // The z2 node appended it (its answer was lost); another node recognised the retry.
      assertThat(second.duplicate()).isTrue();
      assertThat(second.positions())
          .containsExactly(new ProduceResult.Position(0, 1), new ProduceResult.Position(0, 2));
      assertThat(delta(z2Before, cluster.requests(2), "produce/200")).isEqualTo(2);
      assertThat(c.currentNode()).isNotEqualTo(cluster.member(2).url());
      ProduceResult third = join(p.send(NS, s, 0, List.of(ProduceRecord.of("k", "d"))));
      assertThat(third.duplicate()).isFalse();
      assertThat(third.positions()).containsExactly(new ProduceResult.Position(0, 3));
      FetchResult all = join(c.fetch(NS, s, 0, 0, FetchOptions.defaults()));
      assertThat(all.records())
          .extracting(FetchedRecord::valueAsString)
          .containsExactly("a", "b", "c", "d");
    }
  }

  @Test
  void aLostAnswerToAPlainProduceIsAnUnknownOutcomeNotARetry() {
    String s;
    try (LoamClient setup = client("z1")) {
      s = newStream(setup, 1);
    }
    DroppingProxy z2proxy = cluster.member(2).proxy;
    try (LoamClient c = client("z2")) {
      join(c.describeStream(NS, s));
      z2proxy.dropNextAnswerTo("POST /v1/namespaces/" + NS + "/streams/" + s + "/records");
      assertThatThrownBy(() -> join(c.produce(NS, s, List.of(ProduceRecord.of("k", "once")))))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining("may or may not");
      // Applied exactly once: the client did not resend it.
      FetchResult all = join(c.fetch(NS, s, 0, 0, FetchOptions.defaults()));
      assertThat(all.records()).extracting(FetchedRecord::valueAsString).containsExactly("once");
    }
  }

  @Test
  void aFetchWithTheProduceTokenReadsTheWriteOnAnotherNode() {
    try (LoamClient writer = client("z1");
        LoamClient reader = LoamClient.builder().bootstrap(bootstrap()).zone("z2").build()) {
      String s = newStream(writer, 1);
      for (int i = 0; i < 20; i++) {
        ProduceResult r = join(writer.produce(NS, s, List.of(ProduceRecord.of("k", "r" + i))));
        assertThat(writer.sessionToken()).isEqualTo(r.token());
        FetchResult f =
            join(reader.fetch(NS, s, 0, i, FetchOptions.defaults().withMinToken(r.token())));
        assertThat(f.records()).extracting(FetchedRecord::valueAsString).containsExactly("r" + i);
      }
      assertThat(writer.currentNode()).isNotEqualTo(reader.currentNode());
    }
  }

  @Test
  void aLongPollAnswersWhenAnotherNodeAppends() throws Exception {
    try (LoamClient writer = client("z1");
        LoamClient reader = client("z2")) {
      String s = newStream(writer, 1);
      var poll =
          reader.fetch(NS, s, 0, 0, FetchOptions.defaults().withMaxWait(Duration.ofSeconds(20)));
      join(writer.produce(NS, s, List.of(ProduceRecord.of("k", "woken"))));
      FetchResult f = poll.get(20, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(f.records()).extracting(FetchedRecord::valueAsString).containsExactly("woken");
      assertThat(f.nextOffset()).isEqualTo(1);
    }
  }

  @Test
  void problemAnswersBecomeTypedExceptions() {
    try (LoamClient c = client("z2")) {
      String s = newStream(c, 1);
      join(
          c.produce(
              NS,
              s,
              List.of(
                  ProduceRecord.of("k", "v0").withTimestamp(1_000),
                  ProduceRecord.of(new byte[] {0, (byte) 0xff}, new byte[] {(byte) 0xfe})
                      .withHeaders(List.of(new Header("h", new byte[] {1}), Header.of("h", "2")))
                      .withTimestamp(2_000))));
      FetchResult f = join(c.fetch(NS, s, 0, 0, FetchOptions.defaults()));
      assertThat(f.records().get(1).key()).containsExactly(0, 0xff);
      assertThat(f.records().get(1).value()).containsExactly(0xfe);
      assertThat(f.records().get(1).headers()).hasSize(2);
      assertThat(f.records().get(1).headers().get(1).valueAsString()).isEqualTo("2");
      assertThat(join(c.offset(NS, s, 0, OffsetSpec.timestamp(1_500)))).isEqualTo(1);
      assertThat(join(c.offset(NS, s, 0, OffsetSpec.earliest()))).isZero();

      assertThatThrownBy(() -> join(c.describeStream(NS, "missing")))
          .isInstanceOf(NotFoundException.class)
          .hasMessageContaining("code=not_found");
      assertThatThrownBy(() -> join(c.fetch(NS, s, 0, 99, FetchOptions.defaults())))
          .isInstanceOfSatisfying(
              OffsetOutOfRangeException.class,
              e -> {
                assertThat(e.logStartOffset()).isZero();
                assertThat(e.highWatermark()).isEqualTo(2);
              });
      assertThatThrownBy(() -> join(c.createStream(NS, StreamSpec.of(s, 1))))
          .isInstanceOf(ConflictException.class);
      assertThatThrownBy(
              () -> join(c.produce(NS, s, List.of(ProduceRecord.of("k", "v").withPartition(5)))))
          .isInstanceOfSatisfying(
              InvalidRequestException.class,
              e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.getMessage()).contains("partition=5");
              });
      ConsumerState lease = join(c.leaseConsumer(NS, "audit", s, 0, "w1", Duration.ofSeconds(30)));
      assertThatThrownBy(
              () -> join(c.leaseConsumer(NS, "audit", s, 0, "w2", Duration.ofSeconds(30))))
          .isInstanceOf(ConflictException.class);
      assertThatThrownBy(() -> join(c.commitOffset(NS, "audit", s, 0, lease.generation() + 5, 1)))
          .isInstanceOf(FencedException.class);
      assertThatThrownBy(() -> join(c.commitOffset(NS, "audit", s, 0, lease.generation(), 50)))
          .isInstanceOfSatisfying(
              OffsetOutOfRangeException.class,
              e -> {
                // Checked by the owner, whose replica may not yet have applied the produce that
                // went through this client's node.
                assertThat(e.logStartOffset()).isZero();
                assertThat(e.highWatermark()).isBetween(0L, 2L);
              });
      assertThat(join(c.describeStream(NS, s)).partitionBounds())
          .containsExactly(new StreamInfo.PartitionBounds(0, 0, 2));
    }
  }

  @Test
  void aCallWithNoReachableNodeFailsRetryableNamingTheNode() {
    int port = ZonedCluster.freePort();
    try (LoamClient c =
        LoamClient.builder()
            .bootstrap("http://127.0.0.1:" + port)
            .maxAttempts(2)
            .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(2))
            .build()) {
      assertThatThrownBy(() -> LoamClient.join(c.describeStream("default", "s")))
          .isInstanceOfSatisfying(
              UnavailableException.class,
              e -> {
                assertThat(e.code()).isEqualTo("connection_failed");
                assertThat(e.status()).isZero();
                assertThat(e.retryable()).isTrue();
                assertThat(e.getMessage()).contains("127.0.0.1:" + port).contains("attempts=2");
              });
      // A create that never left the client is not an unknown outcome.
      assertThatThrownBy(() -> LoamClient.join(c.createNamespace("x")))
          .isInstanceOf(UnavailableException.class);
    }
  }
}
