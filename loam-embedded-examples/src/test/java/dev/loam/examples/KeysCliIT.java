package dev.loam.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.examples.cli.Launch;
import dev.loam.http.Curl;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./loam keys} end to end against {@code ./loam server} processes: the bootstrap key from
 * this machine, create, list and revoke with {@code --key} and {@code LOAM_API_KEY}, a refused call
 * exiting 1 with the server's reason, and the launchers' authentication rule (loopback: open until
 * the first key; another host: always, unless {@code --insecure}, which warns). No secret appears
 * in any server output or in any output of {@code keys} but the token {@code create} prints.
 */
class KeysCliIT {
  static final Pattern SERVING = Pattern.compile("serving http://[0-9.]+:([0-9]+)");
  static final Pattern TOKEN = Pattern.compile("^([a-z2-7]{16})\\.([A-Za-z0-9_-]{43})$");

  @TempDir Path dir;

  record Server(Process process, List<String> lines, String url) {
    /** The lines printed so far (the drain thread adds to {@link #lines} under its lock). */
    List<String> printed() {
      synchronized (lines) {
        return List.copyOf(lines);
      }
    }
  }

  private Server launch(Path data, String... extra) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.loam.examples.server.LoamServerMain",
                "--data-dir",
                data.toString(),
                "--port",
                "0",
                "--kafka-port",
                "off",
                "--otlp-http-port",
                "off",
                "--otlp-grpc-port",
                "off",
                "--grpc-port",
                "off"));
    cmd.addAll(List.of(extra));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new ArrayList<>();
    String line;
    while ((line = out.readLine()) != null) {
      seen.add(line);
      Matcher m = SERVING.matcher(line);
      if (m.find()) {
        // Drain the rest in the background, so the scan below sees every line.
        Thread drain =
            new Thread(
                () -> {
                  try {
                    String l;
                    while ((l = out.readLine()) != null) {
                      synchronized (seen) {
                        seen.add(l);
                      }
                    }
                  } catch (java.io.IOException e) {
                    // The process ended.
                  }
                });
        drain.setDaemon(true);
        drain.start();
        return new Server(p, seen, "http://127.0.0.1:" + m.group(1));
      }
    }
    throw new AssertionError("the server exited before serving: " + seen);
  }

  private static void stop(Server s) throws Exception {
    s.process().destroy();
    assertThat(s.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
  }

  record Run(int exit, String out, String err) {}

  private static Run keys(Map<String, String> env, String... words) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        KeysCli.run(
            words,
            env,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static Matcher token(Run r) {
    Matcher m = TOKEN.matcher(r.out().strip());
    assertThat(m.matches()).as("a token on stdout: %s", r).isTrue();
    return m;
  }

  @Test
  void createListRevokeAgainstALoopbackServer() throws Exception {
    Curl.requireCurl();
    Server s = launch(dir.resolve("data"));
    List<String> secrets = new ArrayList<>();
    List<String> outputs = new ArrayList<>();
    try {
      assertThat(s.printed()).anyMatch(l -> l.contains("authentication when_keys_exist"));
      Map<String, String> noEnv = Map.of();
      // The first key needs none: the cluster has no key yet.
      Run first =
          keys(noEnv, "create", "--url", s.url(), "--roles", "cluster-admin,admin,produce,consume");
      assertThat(first.exit()).as("%s", first).isZero();
      Matcher admin = token(first);
      secrets.add(dev.loam.tls.UsedSecrets.record(admin.group(2)));
      assertThat(first.err()).contains("created key " + admin.group(1), "cluster-wide");
      String adminToken = admin.group(0);

      // From now on the API is closed: no key is 401, and keys without one exits 1 saying why.
      assertThat(Curl.run(s.url() + "/v1/namespaces").status()).isEqualTo(401);
      Run refused = keys(noEnv, "create", "--url", s.url(), "--roles", "produce");
      assertThat(refused.exit()).isEqualTo(1);
      assertThat(refused.err()).contains("refused (HTTP 401)", "LOAM_API_KEY");
      outputs.add(refused.out() + refused.err());

      // --key, then $LOAM_API_KEY.
      Run second =
          keys(
              noEnv,
              "create",
              "--url",
              s.url(),
              "--key",
              adminToken,
              "--namespace",
              "team-a",
              "--roles",
              "produce");
      assertThat(second.exit()).as("%s", second).isZero();
      Matcher team = token(second);
      secrets.add(dev.loam.tls.UsedSecrets.record(team.group(2)));
      Map<String, String> env = Map.of("LOAM_API_KEY", adminToken);
      Run list = keys(env, "list", "--url", s.url());
      assertThat(list.exit()).as("%s", list).isZero();
      outputs.add(list.out() + list.err());
      assertThat(list.out()).contains(admin.group(1), team.group(1), "team-a", "produce", "active");
      assertThat(
              Curl.run(
                      "-H",
                      "Authorization: Bearer " + team.group(0),
                      s.url() + "/v1/namespaces/team-a")
                  .status())
          .isNotEqualTo(401);

      Run revoke = keys(env, "revoke", "--url", s.url(), "--id", team.group(1));
      assertThat(revoke.exit()).as("%s", revoke).isZero();
      outputs.add(revoke.out() + revoke.err());
      assertThat(
              Curl.run(
                      "-H",
                      "Authorization: Bearer " + team.group(0),
                      s.url() + "/v1/namespaces/team-a")
                  .status())
          .isEqualTo(401);
      Run after = keys(env, "list", "--url", s.url());
      outputs.add(after.out() + after.err());
      assertThat(after.out().lines().filter(l -> l.startsWith(team.group(1))))
          .singleElement()
          .asString()
          .contains("revoked");
      Run unknown = keys(env, "revoke", "--url", s.url(), "--id", "zzzzzzzzzzzzzzzz");
      assertThat(unknown.exit()).isEqualTo(1);
      assertThat(unknown.err()).contains("HTTP 404");
      Run usage = keys(env, "create", "--url", s.url(), "--roles", "root");
      assertThat(usage.exit()).isEqualTo(2);
      assertThat(usage.err()).contains("--roles", "unknown role");
    } finally {
      stop(s);
    }
    String serverOutput;
    synchronized (s.lines()) {
      serverOutput = String.join("\n", s.lines());
    }
    for (String secret : secrets) {
      assertThat(serverOutput).as("the server's output").doesNotContain(secret);
      for (String o : outputs) {
        assertThat(o).doesNotContain(secret);
      }
    }
  }

  @Test
  void aNonLoopbackHostNeedsKeysUnlessInsecure() throws Exception {
    Server strict = launch(dir.resolve("strict"), "--host", "0.0.0.0");
    try {
      assertThat(strict.printed()).anyMatch(l -> l.contains("authentication required"));
      assertThat(strict.printed()).noneMatch(l -> l.contains("WARNING"));
      // Closed from the start; this machine may still create the first key over loopback.
      assertThat(Curl.run(strict.url() + "/v1/namespaces").status()).isEqualTo(401);
      Run first = keys(Map.of(), "create", "--url", strict.url(), "--roles", "cluster-admin");
      assertThat(first.exit()).as("%s", first).isZero();
    } finally {
      stop(strict);
    }
    Server open = launch(dir.resolve("open"), "--host", "0.0.0.0", "--insecure");
    try {
      assertThat(open.printed())
          .anyMatch(l -> l.contains("WARNING: --insecure") && l.contains("0.0.0.0"));
      assertThat(open.printed()).anyMatch(l -> l.contains("authentication when_keys_exist"));
      assertThat(Curl.run(open.url() + "/v1/namespaces").status()).isEqualTo(200);
    } finally {
      stop(open);
    }
  }

  @Test
  void theLauncherRunsKeysAndItsHelp() throws Exception {
    Launch.Result help =
        Launch.run(Duration.ofSeconds(60), dir, LoamCli.class.getName(), "keys", "--help");
    assertThat(help.exitCode()).as("%s", help).hasValue(0);
    assertThat(help.output()).contains("create", "list", "revoke");
    Launch.Result create =
        Launch.run(
            Duration.ofSeconds(60), dir, LoamCli.class.getName(), "keys", "create", "--help");
    assertThat(create.exitCode()).as("%s", create).hasValue(0);
    for (var f : KeysCli.CREATE.flags()) {
      assertThat(create.output()).contains(f.name(), f.help());
    }
    Launch.Result bad =
        Launch.run(Duration.ofSeconds(60), dir, LoamCli.class.getName(), "keys", "make");
    assertThat(bad.exitCode()).as("%s", bad).hasValue(2);
    assertThat(bad.output()).contains("unknown subcommand make");
  }
}
