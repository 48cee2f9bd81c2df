package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.http.IngestQuota;
import dev.loam.http.LoamHttpServer;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code loam server}: starts a node on the embedded default (a data directory) and serves its HTTP
 * API until SIGTERM or Ctrl-C, then stops cleanly: stops accepting, lets in-flight produce requests
 * finish, flushes the node (every pending append is acknowledged or failed), and exits.
 *
 * <pre>
 * java -cp 'loam-embedded-examples/target/classes:loam-embedded-examples/target/lib/*' \
 *     dev.loam.examples.server.LoamServerMain \
 *     [--data-dir DIR] [--port 8080] [--host 127.0.0.1] [--node-id node-1] [--store URI] \
 *     [--ingest-quota-bytes-per-sec N [--ingest-quota-burst-bytes B]]
 * </pre>
 *
 * <p>{@code --ingest-quota-bytes-per-sec} limits every namespace's produce bytes on this node (not
 * cluster-wide); the burst defaults to one second's worth. Off by default.
 */
public final class LoamServerMain {
  private LoamServerMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path dataDir = Path.of("loam-data");
    int port = 8080;
    String host = "127.0.0.1";
    String nodeId = "node-1";
    String store = null;
    long quotaRate = 0;
    long quotaBurst = -1;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("-h") || a.equals("--help")) {
        usage(System.out);
        return;
      }
      if (i + 1 >= args.length) {
        fail("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--data-dir" -> dataDir = Path.of(v);
        case "--port", "--http-port" -> port = parsePort(v);
        case "--host" -> host = v;
        case "--node-id" -> nodeId = v;
        case "--store" -> store = v;
        case "--ingest-quota-bytes-per-sec" -> quotaRate = parseBytes(a, v);
        case "--ingest-quota-burst-bytes" -> quotaBurst = parseBytes(a, v);
        default -> fail("unknown option " + a);
      }
    }
    if (quotaBurst >= 0 && quotaRate == 0) {
      fail("--ingest-quota-burst-bytes needs --ingest-quota-bytes-per-sec");
    }
    IngestQuota quota =
        quotaRate == 0
            ? IngestQuota.unlimited()
            : IngestQuota.of(quotaRate, quotaBurst > 0 ? quotaBurst : quotaRate);
    LoamNode.Builder nb = LoamNode.builder().nodeId(nodeId).dataDir(dataDir);
    if (store != null) {
      nb.storeUri(store);
    }
    LoamNode node = nb.start();
    LoamHttpServer server;
    try {
      server = LoamHttpServer.builder().node(node).host(host).port(port).ingestQuota(quota).start();
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("loam: stopping");
                  server.close();
                  node.close();
                  System.out.println("loam: stopped");
                  stopped.countDown();
                },
                "loam-shutdown"));
    String url = "http://" + host + ":" + server.port();
    System.out.println(
        "loam: node " + nodeId + " serving " + url + " (data " + dataDir.toAbsolutePath() + ")");
    System.out.println(
        "loam: try  curl -s -X POST "
            + url
            + "/v1/namespaces/default/streams -H 'content-type: application/json'"
            + " -d '{\"name\":\"events\",\"partitions\":3}'");
    System.out.flush();
    stopped.await();
  }

  private static int parsePort(String v) {
    try {
      int p = Integer.parseInt(v);
      if (p >= 0 && p <= 65535) {
        return p;
      }
    } catch (NumberFormatException e) {
      // Fall through.
    }
    fail("invalid port " + v);
    return -1;
  }

  private static long parseBytes(String option, String v) {
    try {
      long n = Long.parseLong(v);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Fall through.
    }
    fail("invalid " + option + " " + v + " (a positive number of bytes)");
    return -1;
  }

  private static void fail(String message) {
    System.err.println("loam server: " + message);
    usage(System.err);
    System.exit(2);
  }

  private static void usage(PrintStream out) {
    out.println(
        "usage: loam server [--data-dir DIR] [--port 8080] [--host 127.0.0.1]"
            + " [--node-id node-1] [--store URI]"
            + " [--ingest-quota-bytes-per-sec N [--ingest-quota-burst-bytes B]]");
  }
}
