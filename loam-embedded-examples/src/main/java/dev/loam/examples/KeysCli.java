package dev.loam.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.Role;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import dev.loam.error.LoamException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./loam keys create|list|revoke}: API key admin against a running node's HTTP API
 * (docs/security.md), with {@code --url} and {@code --key} (or {@code LOAM_API_KEY}). {@code
 * create} prints the new key's token, the one time its secret is shown. Exit status 0 on success, 1
 * when the server refuses (its problem detail printed), 2 for a bad command line.
 */
public final class KeysCli {
  private KeysCli() {}

  /** The environment variable a key is read from when {@code --key} is not given. */
  static final String KEY_ENV = AdminHttp.KEY_ENV;

  static final String USAGE =
      """
      usage: ./loam keys SUBCOMMAND [options]    (./loam keys SUBCOMMAND --help lists its flags)

      subcommands:
        create   create an API key; prints its token <id>.<secret> (shown once)
        list     list the API keys (never their secrets)
        revoke   revoke an API key by id; every node refuses it within a metastore watch

      The first key of a cluster needs no --key when made from the node's own machine
      (a loopback --url) while the cluster holds no active key; a stopped ./loam server's
      first key can also be made offline with create --data-dir DIR; see docs/security.md.
      """;

  static final Command CREATE =
      new Command(
          "loam keys create",
          "Creates an API key and prints its token <id>.<secret>: the one time the secret is\n"
              + "shown. Send it as Authorization: Bearer <token>; Kafka clients use the id as\n"
              + "user name and the secret as password.");
  static final Flag<String> CREATE_URL = url(CREATE);
  static final Flag<String> CREATE_KEY = key(CREATE);
  static final Flag<String> NAMESPACE =
      CREATE.optional(
          "--namespace",
          "NS",
          Values.nonBlank(),
          "cluster-wide",
          "the one namespace the key may touch");
  static final Flag<Set<Role>> ROLES =
      CREATE.required(
          "--roles",
          "R,R",
          KeysCli::roles,
          "comma-separated: produce, consume, admin, cluster-admin (cluster-wide only)");
  static final Flag<java.nio.file.Path> DATA_DIR =
      CREATE.optional(
          "--data-dir",
          "DIR",
          Values.path(),
          "none: through --url",
          "create offline in a stopped ./loam server's data directory instead of through --url");
  static final Flag<String> NODE_ID =
      CREATE.flag(
          "--node-id",
          "ID",
          Values.nonBlank(),
          "node-1",
          "with --data-dir: the server's --node-id");
  static final Flag<String> STORE =
      CREATE.optional(
          "--store",
          "URI",
          dev.loam.cli.StoreUris.parser(false),
          "DIR/objects",
          "with --data-dir: the server's --store");

  static final Command LIST = new Command("loam keys list", "Lists the API keys, no secrets.");
  static final Flag<String> LIST_URL = url(LIST);
  static final Flag<String> LIST_KEY = key(LIST);

  static final Command REVOKE =
      new Command(
          "loam keys revoke", "Revokes an API key: from the revocation on, every node refuses it.");
  static final Flag<String> REVOKE_URL = url(REVOKE);
  static final Flag<String> REVOKE_KEY = key(REVOKE);
  static final Flag<String> ID =
      REVOKE.required("--id", "ID", Values.nonBlank(), "the key's id (./loam keys list)");

  private static Flag<String> url(Command c) {
    return AdminHttp.url(c);
  }

  private static Flag<String> key(Command c) {
    return AdminHttp.key(c);
  }

  /** The subcommands' option tables, by name. */
  static Map<String, Command> commands() {
    return Map.of("create", CREATE, "list", LIST, "revoke", REVOKE);
  }

  private static Set<Role> roles(String text) {
    Set<Role> out = new LinkedHashSet<>();
    for (String r : text.split(",")) {
      try {
        out.add(Role.parse(r));
      } catch (LoamException e) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
    }
    return out;
  }

  /** Parses and validates a {@code loam keys ...} command line without running it. */
  static void validate(String[] words) {
    if (words.length == 0 || List.of("help", "--help", "-h").contains(words[0])) {
      return;
    }
    Command c = commands().get(words[0]);
    if (c == null) {
      throw new UsageException(null, "unknown keys subcommand " + words[0]);
    }
    c.parse(Arrays.copyOfRange(words, 1, words.length));
  }

  /** Runs {@code ./loam keys ...}; returns the exit status. */
  static int run(String[] words, Map<String, String> env, PrintStream out, PrintStream err) {
    if (words.length == 0 || List.of("help", "--help", "-h").contains(words[0])) {
      (words.length == 0 ? err : out).print(USAGE);
      return words.length == 0 ? 2 : 0;
    }
    Command c = commands().get(words[0]);
    if (c == null) {
      err.println("loam keys: unknown subcommand " + words[0]);
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
      if (c == CREATE && a.get(DATA_DIR) != null) {
        if (a.given(CREATE_URL) || a.given(CREATE_KEY)) {
          c.printUsageError(
              new UsageException(DATA_DIR.name(), "creates offline: --url and --key do not apply"),
              err);
          return 2;
        }
        return OfflineKeys.create(
            a.get(DATA_DIR),
            a.get(NODE_ID),
            a.get(STORE),
            a.get(NAMESPACE),
            a.get(ROLES),
            out,
            err);
      } else if (c == CREATE) {
        if (a.given(NODE_ID) || a.given(STORE)) {
          c.printUsageError(
              new UsageException(
                  a.given(NODE_ID) ? NODE_ID.name() : STORE.name(), "needs --data-dir"),
              err);
          return 2;
        }
        return create(a, env, out, err);
      } else if (c == LIST) {
        return list(a, env, out, err);
      } else {
        return revoke(a, env, out, err);
      }
    } catch (IOException e) {
      err.println(c.name() + ": cannot reach the node: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private static int create(ParsedArgs a, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    ObjectNode body = JSON.createObjectNode();
    String ns = a.get(NAMESPACE);
    if (ns == null) {
      body.putNull("namespace");
    } else {
      body.put("namespace", ns);
    }
    ArrayNode roles = body.putArray("roles");
    a.get(ROLES).forEach(r -> roles.add(r.label()));
    HttpResponse<String> r =
        AdminHttp.send(
            a.get(CREATE_URL),
            "POST",
            "/v1/admin/keys",
            AdminHttp.token(a.get(CREATE_KEY), env),
            JSON.writeValueAsString(body));
    if (r.statusCode() != 201) {
      return AdminHttp.refused(CREATE, r, err);
    }
    JsonNode k = JSON.readTree(r.body());
    out.println(k.get("token").asText());
    err.println(
        "loam keys: created key "
            + k.get("id").asText()
            + " ("
            + describe(k)
            + "); the token above is shown only now: keep it secret");
    return 0;
  }

  private static int list(ParsedArgs a, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    HttpResponse<String> r =
        AdminHttp.send(
            a.get(LIST_URL), "GET", "/v1/admin/keys", AdminHttp.token(a.get(LIST_KEY), env), null);
    if (r.statusCode() != 200) {
      return AdminHttp.refused(LIST, r, err);
    }
    out.printf("%-18s %-10s %-20s %s%n", "ID", "STATUS", "NAMESPACE", "ROLES");
    for (JsonNode k : JSON.readTree(r.body()).get("keys")) {
      out.printf(
          "%-18s %-10s %-20s %s%n",
          k.get("id").asText(),
          k.get("revoked").asBoolean() ? "revoked" : "active",
          k.get("namespace").isNull() ? "*" : k.get("namespace").asText(),
          roleList(k));
    }
    return 0;
  }

  private static int revoke(ParsedArgs a, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    String id = a.get(ID);
    HttpResponse<String> r =
        AdminHttp.send(
            a.get(REVOKE_URL),
            "DELETE",
            "/v1/admin/keys/"
                + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8),
            AdminHttp.token(a.get(REVOKE_KEY), env),
            null);
    if (r.statusCode() != 200) {
      return AdminHttp.refused(REVOKE, r, err);
    }
    out.println("loam keys: revoked key " + id);
    return 0;
  }

  private static String describe(JsonNode k) {
    String ns =
        k.get("namespace").isNull() ? "cluster-wide" : "namespace " + k.get("namespace").asText();
    return ns + ", roles " + roleList(k);
  }

  private static String roleList(JsonNode k) {
    List<String> roles = new ArrayList<>();
    k.get("roles").forEach(r -> roles.add(r.asText()));
    return String.join(",", roles);
  }
}
