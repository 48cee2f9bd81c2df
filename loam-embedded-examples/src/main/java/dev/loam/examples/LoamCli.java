package dev.loam.examples;

import dev.loam.error.LoamException;
import dev.loam.examples.server.LoamNodeMain;
import dev.loam.examples.server.LoamServerMain;
import java.util.Arrays;

/**
 * The {@code ./loam} launcher's entry point: {@code loam demo|server|node [options]} ({@code loam
 * bench} is dispatched by the script itself).
 */
public final class LoamCli {
  private LoamCli() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].equals("help") || args[0].equals("--help")) {
      usage();
      System.exit(args.length == 0 ? 2 : 0);
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    int code =
        switch (args[0]) {
          case "demo" -> runDemo(rest);
          case "server" -> {
            LoamServerMain.main(rest);
            yield 0;
          }
          case "node" -> {
            LoamNodeMain.main(rest);
            yield 0;
          }
          default -> {
            System.err.println("unknown command " + args[0]);
            usage();
            yield 2;
          }
        };
    System.exit(code);
  }

  private static int runDemo(String[] rest) throws Exception {
    try {
      return Demo.run(rest);
    } catch (IllegalArgumentException e) {
      System.err.println("loam demo: " + e.getMessage());
      usage();
      return 2;
    } catch (LoamException e) {
      // A refusal with a typed message (a store of another cluster, a metastore whose objects are
      // missing): the message is the whole story, a stack trace would hide it.
      System.err.println("loam demo: " + e.kind() + ": " + e.getMessage());
      return 1;
    }
  }

  private static void usage() {
    System.err.println(
        "usage: loam demo [--data-dir DIR] [--store URI] [--records N] [--partitions P]\n"
            + "                 [--flush-ms MS] [--nodes 3 [--kill-leader]]\n"
            + "                 [--records-per-append N] [--in-flight N] [--value-bytes N]\n"
            + "  Starts an embedded node on DIR (default ./loam-data), appends N records (default\n"
            + "  100000) to demo/events, reads every partition back and checks it. --store puts\n"
            + "  objects elsewhere: mem://, file:///path, s3://, azblob://, gs:// (the metastore\n"
            + "  stays in DIR/meta). --nodes 3 runs a 3-node cluster in one JVM (Ratis metastore\n"
            + "  replicas in DIR/node-i/meta, appends round-robin over the nodes, every node reads\n"
            + "  back; --kill-leader crashes the metastore leader's node mid-run).\n"
            + "       loam server [--data-dir DIR] [--port N] [--node-id ID] [--store URI]\n"
            + "  Serves the native HTTP API (docs/reference/http-api.md) on the embedded default.\n"
            + "       loam node --id ID --peers id1=host:port,... --data-dir DIR --store URI\n"
            + "                 --http-port PORT [--zone Z] [--host H] [--slots N]\n"
            + "                 [--advertised-address URL] [--voters N] [--flush-ms MS]\n"
            + "  Runs one member of a cluster in this process: a Ratis metastore replica, a node\n"
            + "  on the shared store and its HTTP API (docs/operations/running-a-cluster.md).");
  }
}
