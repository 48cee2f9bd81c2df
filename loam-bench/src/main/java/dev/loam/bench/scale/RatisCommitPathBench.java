package dev.loam.bench.scale;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Where a WAL commit's time goes on Ratis: in one JVM, interleaved, three groups of three voters
 * over loopback gRPC, each committing the same encoded one-chunk CommitWal with one serial proposer
 * through the leader:
 *
 * <ul>
 *   <li>{@code raw}: Ratis servers with Ratis's defaults and a state machine that only answers;
 *   <li>{@code raw+loam-settings}: the same state machine with the server and client settings
 *       {@link RatisMetastore} uses (linearizable reads, log metadata, segment size, purge and
 *       snapshot settings, retry cache expiry, request timeout);
 *   <li>{@code loam}: {@link RatisMetastore} itself, with the time from the proposal to the
 *       leader's apply (an apply listener on the leader) split out from the total.
 * </ul>
 *
 * A main(), not a test:
 *
 * <pre>
 * java -cp "loam-bench/target/classes:loam-bench/target/lib/*" \
 *     dev.loam.bench.scale.RatisCommitPathBench [commits=500] [rounds=3]
 * </pre>
 */
public final class RatisCommitPathBench {
  private static final InstantSource CLOCK = InstantSource.system();

  private RatisCommitPathBench() {}

  public static void main(String[] args) throws Exception {
    Args a = Args.parse(args);
    int commits = a.integer("commits", 500);
    int rounds = a.integer("rounds", 3);
    a.done();
    Path dir = Files.createTempDirectory("loam-ratis-path");
    ExecutorService executor = Executors.newFixedThreadPool(4);
    String[] names = {"raw", "raw+loam-settings", "loam"};
    double[][] p50 = new double[names.length][rounds];
    double[][] p99 = new double[names.length][rounds];
    double[] toApply = new double[rounds];
    try {
      for (int r = 0; r < rounds; r++) {
        for (int v = 0; v < 2; v++) {
          long[] n = raw(dir.resolve(r + "-" + v), v == 1, commits);
          p50[v][r] = ScaleFixtures.percentileMillis(n, 50);
          p99[v][r] = ScaleFixtures.percentileMillis(n, 99);
        }
        long[][] loam = loam(dir.resolve(r + "-loam"), executor, commits);
        p50[2][r] = ScaleFixtures.percentileMillis(loam[0], 50);
        p99[2][r] = ScaleFixtures.percentileMillis(loam[0], 99);
        toApply[r] = ScaleFixtures.percentileMillis(loam[1], 50);
      }
    } finally {
      executor.shutdownNow();
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    for (int v = 0; v < names.length; v++) {
      System.out.printf(
          Locale.ROOT,
          "%-18s %d serial commits via the leader, median [min..max] of %d rounds: p50 %s ms,"
              + " p99 %s ms%n",
          names[v],
          commits,
          rounds,
          ScaleFixtures.spread(p50[v], "%.2f"),
          ScaleFixtures.spread(p99[v], "%.2f"));
    }
    System.out.printf(
        Locale.ROOT,
        "loam: proposal -> applied on the leader p50 %s ms (the rest of the total is the reply's way"
            + " back to the proposer)%n",
        ScaleFixtures.spread(toApply, "%.2f"));
    System.exit(0);
  }

  /** The bytes every variant commits: a one-chunk CommitWal as the writer proposes it. */
  private static byte[] payload(long streamId, int i) {
    long now = CLOCK.millis();
    return CommandCodec.encode(ScaleFixtures.object("wal/path/" + i, now, streamId, 0, 1));
  }

  /** A state machine that applies nothing: Ratis, its fsync and the network alone. */
  static final class Echo extends BaseStateMachine {
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
      updateLastAppliedTermIndex(trx.getLogEntry().getTerm(), trx.getLogEntry().getIndex());
      return CompletableFuture.completedFuture(Message.valueOf(ByteString.EMPTY));
    }
  }

  private static long[] raw(Path dir, boolean loamSettings, int commits) throws Exception {
    RatisSettings defaults = RatisSettings.builder("r1", Map.of("r1", "127.0.0.1:1"), dir).build();
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(RaftPeer.newBuilder().setId("r" + i).setAddress("127.0.0.1:" + freePort()).build());
    }
    RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
    List<RaftServer> servers = new ArrayList<>();
    try {
      for (RaftPeer p : peers) {
        RaftProperties props = new RaftProperties();
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(props, "127.0.0.1");
        GrpcConfigKeys.Server.setPort(props, Integer.parseInt(p.getAddress().split(":")[1]));
        RaftServerConfigKeys.setStorageDir(
            props, List.of(dir.resolve(p.getId().toString()).toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(props, td(defaults.electionTimeoutMin().toMillis()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(props, td(defaults.electionTimeoutMax().toMillis()));
        if (loamSettings) {
          loamServerSettings(props, defaults);
        }
        RaftServer s =
            RaftServer.newBuilder()
                .setServerId(p.getId())
                .setGroup(group)
                .setStateMachine(new Echo())
                .setProperties(props)
                .setOption(RaftStorage.StartupOption.FORMAT)
                .build();
        s.start();
        servers.add(s);
      }
      RaftProperties cp = new RaftProperties();
      RaftConfigKeys.Rpc.setType(cp, SupportedRpcType.GRPC);
      if (loamSettings) {
        org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(
            cp, td(defaults.requestTimeout().toMillis()));
        org.apache.ratis.client.RaftClientConfigKeys.Async.setOutstandingRequestsMax(
            cp, defaults.maxInFlightProposals());
      }
      try (RaftClient client =
          RaftClient.newBuilder()
              .setProperties(cp)
              .setParameters(new Parameters())
              .setRaftGroup(group)
              .build()) {
        client.io().send(Message.valueOf("warm")); // waits for a leader
        // Send through the leader, as the loam variant does.
        try (RaftClient toLeader =
            RaftClient.newBuilder()
                .setProperties(cp)
                .setParameters(new Parameters())
                .setRaftGroup(group)
                .setLeaderId(client.getLeaderId())
                .build()) {
          return serial(
              commits,
              i ->
                  toLeader
                      .async()
                      .send(Message.valueOf(ByteString.copyFrom(payload(1, i))))
                      .thenApply(reply -> null));
        }
      }
    } finally {
      for (RaftServer s : servers) {
        s.close();
      }
    }
  }

  /** The server settings RatisMetastore sets beyond the timeouts (see its serverProperties). */
  private static void loamServerSettings(RaftProperties p, RatisSettings s) {
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, td(s.requestTimeout().toMillis()));
    RaftServerConfigKeys.setStagingTimeout(p, td(s.electionTimeoutMax().toMillis() * 3));
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setTimeout(p, td(s.requestTimeout().toMillis()));
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, true);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(s.logSegmentSizeBytes()));
    RaftServerConfigKeys.Log.setPreallocatedSize(
        p, SizeInBytes.valueOf(Math.min(4L << 20, s.logSegmentSizeBytes())));
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(
        p, (int) Math.max(1, Math.min(1024, s.snapshotThresholdEntries())));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, s.snapshotThresholdEntries());
    RaftServerConfigKeys.Snapshot.setCreationGap(p, 1);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
    long expiry = Math.max(60_000, s.proposalTimeoutBound().toMillis() * 2);
    RaftServerConfigKeys.RetryCache.setExpiryTime(p, td(expiry));
  }

  /** {total nanos, nanos from the proposal to the leader's apply} per commit, each sorted. */
  private static long[][] loam(Path dir, ExecutorService executor, int commits) throws Exception {
    Map<String, String> peers = new TreeMap<>();
    for (int i = 1; i <= 3; i++) {
      peers.put("m" + i, "127.0.0.1:" + freePort());
    }
    List<RatisMetastore> ms = new ArrayList<>();
    try {
      for (String id : peers.keySet()) {
        ms.add(
            RatisMetastore.start(
                RatisSettings.builder(id, peers, dir.resolve(id)).build(),
                MetaSettings.defaults(),
                CLOCK,
                executor));
      }
      for (RatisMetastore m : ms) {
        m.readLinearizable(r -> r.appliedIndex()).get(60, TimeUnit.SECONDS);
      }
      RatisMetastore leader = null;
      for (int i = 0; i < 600 && leader == null; i++) {
        for (RatisMetastore m : ms) {
          if (m.isLeader()) {
            leader = m;
          }
        }
        if (leader == null) {
          Thread.sleep(50);
        }
      }
      if (leader == null) {
        throw new IllegalStateException("no Ratis leader after 30 s");
      }
      Map<String, Long> appliedAt = new ConcurrentHashMap<>();
      leader.addApplyListener(
          (index, command, outcome) -> {
            if (command instanceof dev.loam.meta.command.CommitWal c) {
              appliedAt.put(c.objectKey(), System.nanoTime());
            }
          });
      long now = CLOCK.millis();
      get(leader, new RegisterNode(ScaleFixtures.origin(now), "h:1", 1, "z"));
      Outcome o =
          get(
              leader,
              new CreateStream(
                  ScaleFixtures.origin(now), "default", "path", StreamConfig.standard(1)));
      long stream = ((Outcome.StreamCreated) o).stream().id();
      long[] sent = new long[commits];
      RatisMetastore via = leader;
      long[] total =
          serial(
              commits,
              i -> {
                Command c = CommandCodec.decode(payload(stream, i));
                if (i >= 0) {
                  sent[i] = System.nanoTime();
                }
                return via.propose(c).thenApply(applied -> null);
              });
      long[] toApply = new long[commits];
      for (int i = 0; i < commits; i++) {
        Long at = appliedAt.get("wal/path/" + i);
        toApply[i] = at == null ? Long.MAX_VALUE : at - sent[i];
      }
      Arrays.sort(toApply);
      return new long[][] {total, toApply};
    } finally {
      for (RatisMetastore m : ms) {
        m.close();
      }
    }
  }

  private static Outcome get(RatisMetastore via, Command c) throws Exception {
    return MetastoreScaleBench.expect(via.propose(c).get(60, TimeUnit.SECONDS).outcome());
  }

  interface Send {
    /** Sends commit {@code i} (negative: a warm-up commit). */
    CompletableFuture<Void> send(int i);
  }

  /** {@code commits} serial sends after half as many warm-up sends; the latencies, sorted. */
  private static long[] serial(int commits, Send send) throws Exception {
    for (int i = -commits / 2; i < 0; i++) {
      send.send(i - 1_000_000).get(30, TimeUnit.SECONDS);
    }
    long[] nanos = new long[commits];
    for (int i = 0; i < commits; i++) {
      long t0 = System.nanoTime();
      send.send(i).get(30, TimeUnit.SECONDS);
      nanos[i] = System.nanoTime() - t0;
    }
    Arrays.sort(nanos);
    return nanos;
  }

  private static TimeDuration td(long millis) {
    return TimeDuration.valueOf(millis, TimeUnit.MILLISECONDS);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
