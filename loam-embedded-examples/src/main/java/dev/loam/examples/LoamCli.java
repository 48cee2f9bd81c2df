package dev.loam.examples;

import dev.loam.cli.Command;
import dev.loam.cli.UsageException;
import dev.loam.error.LoamException;
import dev.loam.examples.server.LoamNodeMain;
import dev.loam.examples.server.LoamServerMain;
import dev.loam.examples.server.NodeOptions;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ./loam} launcher's entry point: {@code loam demo|server|node|keys|partitions
 * [options]} ({@code loam bench} is dispatched by the script itself, to the load generator's own
 * class path). Every command takes {@code --help}; a bad command line exits with status 2 and a
 * message naming the flag.
 */
public final class LoamCli {
  private LoamCli() {}

  /** The commands {@code ./loam} runs, with what each does (the text of {@code ./loam --help}). */
  static final String USAGE =
      """
      usage: ./loam COMMAND [options]    (./loam COMMAND --help lists the command's flags)

      commands:
        demo     an embedded node (or --nodes 3: a cluster in this JVM) appends records to
                 demo/events, reads every partition back and checks it
        server   one node on the embedded default serving the native HTTP API
                 (docs/reference/http-api.md)
        node     one member of a cluster in its own process: a Ratis metastore replica, a node
                 on the shared store and its HTTP API (docs/operations/running-a-cluster.md)
        keys     API keys of a running node: create, list, revoke (docs/security.md)
        partitions  a running cluster's quorum partitions: move one to another journal
                 (docs/design/quorum.md)
        bench    the end-to-end load generator (docs/operations/performance.md)
      """;

  /**
   * The option tables of the commands this class runs, by name ({@code bench} has its own, in
   * loam-bench's {@code BenchConfig.CMD}).
   */
  public static Map<String, Command> commands() {
    Map<String, Command> m = new LinkedHashMap<>();
    m.put("demo", Demo.CMD);
    m.put("server", LoamServerMain.CMD);
    m.put("node", NodeOptions.CMD);
    return m;
  }

  /**
   * Parses and validates {@code ./loam COMMAND [options]} (the words after {@code ./loam}) as the
   * command would, without running it: a {@link UsageException} names the flag at fault.
   */
  public static void validate(String... words) {
    if (words.length == 0 || List.of("help", "--help", "-h").contains(words[0])) {
      return;
    }
    String[] rest = Arrays.copyOfRange(words, 1, words.length);
    switch (words[0]) {
      case "demo" -> Demo.validate(rest);
      case "server" -> LoamServerMain.validate(rest);
      case "node" -> NodeOptions.validate(rest);
      case "keys" -> KeysCli.validate(rest);
      case "partitions" -> PartitionsCli.validate(rest);
      default -> throw new UsageException(null, "unknown command " + words[0]);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0
        || args[0].equals("help")
        || args[0].equals("--help")
        || args[0].equals("-h")) {
      PrintStream out = args.length == 0 ? System.err : System.out;
      out.print(USAGE);
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
          case "keys" -> KeysCli.run(rest, System.getenv(), System.out, System.err);
          case "partitions" -> PartitionsCli.run(rest, System.getenv(), System.out, System.err);
          case "bench" -> {
            // Only the script knows the bench's class path.
            System.err.println(
                "loam: run the load generator as ./loam bench (the launcher script)");
            yield 2;
          }
          default -> {
            System.err.println("loam: unknown command " + args[0]);
            System.err.print(USAGE);
            yield 2;
          }
        };
    System.exit(code);
  }

  private static int runDemo(String[] rest) throws Exception {
    try {
      return Demo.run(rest);
    } catch (UsageException e) {
      Demo.CMD.printUsageError(e, System.err);
      return 2;
    } catch (LoamException e) {
      // A refusal with a typed message (a store of another cluster, a metastore whose objects are
      // missing): the message is the whole story, a stack trace would hide it.
      System.err.println("loam demo: " + e.kind() + ": " + e.getMessage());
      return 1;
    }
  }
}
