package dev.loam.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code ./loam partitions move}: moves a quorum stream's partition to another journal through a
 * running node's HTTP API ({@code POST /v1/admin/streams/{ns}/{s}/partitions/{p}/move},
 * docs/reference/http-api.md), with {@code --url} and a cluster-admin {@code --key} (or {@code
 * LOAM_API_KEY}). Exit status 0 once the move is begun, 1 when the server refuses (its problem
 * detail printed: not a quorum stream, no such journal, a move under way, ...), 2 for a bad command
 * line.
 */
public final class PartitionsCli {
  private PartitionsCli() {}

  static final String USAGE =
      """
      usage: ./loam partitions SUBCOMMAND [options]    (SUBCOMMAND --help lists its flags)

      subcommands:
        move     move a quorum stream's partition to another journal (docs/design/quorum.md)
      """;

  static final Command MOVE =
      new Command(
          "loam partitions move",
          "Moves a quorum stream's partition to another journal: the source journal's leader\n"
              + "seals the partition's tail and the target takes it over from there; nothing is\n"
              + "copied, lost or duplicated. Prints the move once begun; GET the stream to see\n"
              + "its partition's journal change.");
  static final Flag<String> URL = AdminHttp.url(MOVE);
  static final Flag<String> KEY = AdminHttp.key(MOVE);
  static final Flag<String[]> STREAM =
      MOVE.required("--stream", "NS/STREAM", PartitionsCli::stream, "the quorum stream");
  static final Flag<Integer> PARTITION =
      MOVE.required(
          "--partition", "P", Values.integer(0, Integer.MAX_VALUE), "the partition to move");
  static final Flag<String> TO_JOURNAL =
      MOVE.required(
          "--to-journal",
          "J",
          Values.nonBlank(),
          "the journal that takes the partition over (quorum-1, quorum-2, ...)");

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The subcommands' option tables, by name. */
  static Map<String, Command> commands() {
    return Map.of("move", MOVE);
  }

  private static String[] stream(String text) {
    int slash = text.indexOf('/');
    if (slash <= 0 || slash == text.length() - 1 || text.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException("not NAMESPACE/STREAM: " + text);
    }
    return new String[] {text.substring(0, slash), text.substring(slash + 1)};
  }

  /** Parses and validates a {@code loam partitions ...} command line without running it. */
  static void validate(String[] words) {
    if (words.length == 0 || List.of("help", "--help", "-h").contains(words[0])) {
      return;
    }
    Command c = commands().get(words[0]);
    if (c == null) {
      throw new UsageException(null, "unknown partitions subcommand " + words[0]);
    }
    c.parse(Arrays.copyOfRange(words, 1, words.length));
  }

  /** Runs {@code ./loam partitions ...}; returns the exit status. */
  static int run(String[] words, Map<String, String> env, PrintStream out, PrintStream err) {
    if (words.length == 0 || List.of("help", "--help", "-h").contains(words[0])) {
      (words.length == 0 ? err : out).print(USAGE);
      return words.length == 0 ? 2 : 0;
    }
    Command c = commands().get(words[0]);
    if (c == null) {
      err.println("loam partitions: unknown subcommand " + words[0]);
      err.print(USAGE);
      return 2;
    }
    ParsedArgs a;
    try {
      a = c.parse(Arrays.copyOfRange(words, 1, words.length));
    } catch (UsageException e) {
      c.printUsageError(e, err);
      return 2;
    }
    if (a.help()) {
      out.print(c.help());
      return 0;
    }
    try {
      return move(a, env, out, err);
    } catch (IOException e) {
      err.println(c.name() + ": cannot reach the node: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private static int move(ParsedArgs a, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    String[] s = a.get(STREAM);
    int partition = a.get(PARTITION);
    ObjectNode body = JSON.createObjectNode();
    body.put("to_journal", a.get(TO_JOURNAL));
    HttpResponse<String> r =
        AdminHttp.send(
            a.get(URL),
            "POST",
            "/v1/admin/streams/"
                + URLEncoder.encode(s[0], StandardCharsets.UTF_8)
                + "/"
                + URLEncoder.encode(s[1], StandardCharsets.UTF_8)
                + "/partitions/"
                + partition
                + "/move",
            AdminHttp.token(a.get(KEY), env),
            JSON.writeValueAsString(body));
    if (r.statusCode() != 202) {
      return AdminHttp.refused(MOVE, r, err);
    }
    JsonNode m = JSON.readTree(r.body());
    List<String> replicas = new ArrayList<>();
    m.path("to_replicas").forEach(n -> replicas.add(n.asText()));
    out.println(
        "loam partitions: moving "
            + s[0]
            + "/"
            + s[1]
            + " partition "
            + partition
            + " from "
            + m.path("from_journal").asText()
            + " to "
            + m.path("to_journal").asText()
            + " (replicas "
            + String.join(",", replicas)
            + ")");
    return 0;
  }
}
