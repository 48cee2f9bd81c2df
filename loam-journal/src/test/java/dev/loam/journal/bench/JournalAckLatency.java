package dev.loam.journal.bench;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.ratis.JournalGroup;
import dev.loam.journal.ratis.JournalServer;
import dev.loam.journal.ratis.JournalSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

/**
 * Measures, in one JVM and one run, the acknowledgement latency of quorum appends (a {@link
 * JournalServer} journal of three replicas over loopback, 1 KiB batches) next to raw Ratis (three
 * servers with the same fsync settings and a state machine that only answers), and the journal's
 * apply throughput. Not a test: run by hand (docs/operations/performance.md "Quorum class").
 *
 * <pre>
 * mvn -o -pl loam-journal test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt
 * java -cp loam-journal/target/test-classes:loam-journal/target/classes:$(cat loam-journal/cp.txt) \
 *   dev.loam.journal.bench.JournalAckLatency [appends] [inFlight]
 * </pre>
 */
public final class JournalAckLatency {
  private JournalAckLatency() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
    int inFlight = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    Path dir = Files.createTempDirectory("journal-bench");
    System.out.printf("appends=%d inFlight=%d batch=1 record of 1 KiB%n", n, inFlight);
    rawRatis(dir.resolve("raw"), n, inFlight);
    quorum(dir.resolve("quorum"), n, inFlight);
    rawRatis(dir.resolve("raw2"), n, inFlight);
    quorum(dir.resolve("quorum2"), n, inFlight);
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static void quorum(Path dir, int n, int inFlight) throws Exception {
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 1; i <= 3; i++) {
      peers.put("n" + i, "127.0.0.1:" + freePort());
    }
    ExecutorService ex = Executors.newFixedThreadPool(4);
    List<JournalServer> servers = new ArrayList<>();
    try {
      for (String id : peers.keySet()) {
        JournalServer s =
            JournalServer.start(
                JournalSettings.defaults(id, peers.get(id), dir.resolve(id))
                    .withMaxUnsealedBytes(1L << 30),
                ex);
        s.host(new JournalGroup("bench", peers));
        servers.add(s);
      }
      JournalServer leader = null;
      while (leader == null) {
        for (JournalServer s : servers) {
          if (s.isLeader("bench")) {
            leader = s;
          }
        }
        Thread.onSpinWait();
      }
      leader.propose("bench", new JournalEntry.Host(1, 0, 0)).get(30, TimeUnit.SECONDS);
      byte[] value = "v".repeat(1024).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      byte[] batch =
          dev.loam.wal.batch.RecordBatchEncoder.encode(
              dev.loam.wal.batch.BatchSettings.plain(dev.loam.wal.batch.Compression.NONE),
              List.of(dev.loam.wal.batch.RecordData.of(Batches.T0, null, value)));
      JournalServer l = leader;
      long[] lat =
          run(
              n,
              inFlight,
              () ->
                  l.propose("bench", new JournalEntry.Append(1, 0, batch))
                      .thenApply(
                          r -> {
                            if (!(r instanceof JournalResult.Appended)) {
                              throw new IllegalStateException(r.toString());
                            }
                            return null;
                          }));
      report("quorum (JournalServer, 3 replicas)", lat);
    } finally {
      for (JournalServer s : servers) {
        s.close();
      }
      ex.shutdownNow();
    }
  }

  /** A state machine that applies nothing: the cost of Ratis, its fsync and the network alone. */
  static final class Echo extends BaseStateMachine {
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
      updateLastAppliedTermIndex(trx.getLogEntry().getTerm(), trx.getLogEntry().getIndex());
      return CompletableFuture.completedFuture(Message.valueOf(ByteString.EMPTY));
    }
  }

  static void rawRatis(Path dir, int n, int inFlight) throws Exception {
    RaftGroupId gid = RaftGroupId.randomId();
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(RaftPeer.newBuilder().setId("r" + i).setAddress("127.0.0.1:" + freePort()).build());
    }
    RaftGroup group = RaftGroup.valueOf(gid, peers);
    List<RaftServer> servers = new ArrayList<>();
    for (RaftPeer p : peers) {
      RaftProperties props = new RaftProperties();
      RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
      GrpcConfigKeys.Server.setHost(props, "127.0.0.1");
      GrpcConfigKeys.Server.setPort(props, Integer.parseInt(p.getAddress().split(":")[1]));
      RaftServerConfigKeys.setStorageDir(
          props, List.of(dir.resolve(p.getId().toString()).toFile()));
      RaftServerConfigKeys.Rpc.setTimeoutMin(
          props, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
      RaftServerConfigKeys.Rpc.setTimeoutMax(
          props, TimeDuration.valueOf(600, TimeUnit.MILLISECONDS));
      RaftServerConfigKeys.Log.setUnsafeFlushEnabled(props, false);
      RaftServerConfigKeys.Log.setAsyncFlushEnabled(props, false);
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
    try (RaftClient client =
        RaftClient.newBuilder()
            .setProperties(cp)
            .setParameters(new Parameters())
            .setRaftGroup(group)
            .build()) {
      client.io().send(Message.valueOf("warm")); // waits for a leader
      RaftPeerId leader = client.getLeaderId();
      Message m = Message.valueOf(ByteString.copyFrom(new byte[1024 + 90]));
      long[] lat = run(n, inFlight, () -> client.async().send(m).thenApply(r -> null));
      report("raw Ratis (no-op state machine, leader " + leader + ")", lat);
    } finally {
      for (RaftServer s : servers) {
        s.close();
      }
    }
  }

  interface Send {
    CompletableFuture<Void> send();
  }

  /** Runs n sends with at most inFlight outstanding; returns each send's latency in ns. */
  static long[] run(int n, int inFlight, Send send) throws Exception {
    // Warm-up: a tenth of the sends, not measured.
    for (int i = 0; i < Math.max(100, n / 10); i++) {
      send.send().get(30, TimeUnit.SECONDS);
    }
    long[] lat = new long[n];
    java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(inFlight);
    CompletableFuture<?>[] all = new CompletableFuture<?>[n];
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      window.acquire();
      long t0 = System.nanoTime();
      int k = i;
      all[i] =
          send.send()
              .whenComplete(
                  (r, e) -> {
                    lat[k] = System.nanoTime() - t0;
                    window.release();
                  });
    }
    CompletableFuture.allOf(all).get(120, TimeUnit.SECONDS);
    long elapsed = System.nanoTime() - start;
    System.out.printf(
        "  %d appends in %.2f s = %.0f appends/s%n", n, elapsed / 1e9, n / (elapsed / 1e9));
    return lat;
  }

  static void report(String what, long[] lat) {
    long[] s = lat.clone();
    Arrays.sort(s);
    System.out.printf(
        "%s: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n",
        what,
        s[s.length / 2] / 1e6,
        s[(int) (s.length * 0.9)] / 1e6,
        s[(int) (s.length * 0.99)] / 1e6,
        s[s.length - 1] / 1e6);
  }
}
