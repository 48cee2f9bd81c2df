package dev.loam.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.LoamNode;
import dev.loam.api.Principal;
import dev.loam.api.Role;
import dev.loam.tls.UsedSecrets;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./loam keys create --data-dir}: the first key made offline in a stopped server's data
 * directory is the cluster's key once the node starts again; a running node's directory (locked)
 * and a {@code ./loam node} directory are refused with a message, and the flags that belong to the
 * online mode are refused with it.
 */
class OfflineKeysIT {
  @TempDir Path dir;

  record Run(int status, String out, String err) {}

  static Run keys(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        KeysCli.run(
            args,
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aKeyCreatedOfflineIsTheNodesKeyWhenItStartsAgain() throws Exception {
    Path data = dir.resolve("data");
    try (LoamNode n = LoamNode.builder().nodeId("node-1").dataDir(data).start()) {
      assertThat(n.log().hasActiveApiKeys()).isFalse();
      // Running: the metastore's lock refuses a second opener.
      Run locked = keys("create", "--data-dir", data.toString(), "--roles", "cluster-admin");
      assertThat(locked.status()).isEqualTo(1);
      assertThat(locked.err()).contains("cannot open --data-dir").contains("running");
    }
    Run r =
        keys(
            "create",
            "--data-dir",
            data.toString(),
            "--roles",
            "cluster-admin,admin,produce,consume");
    assertThat(r.status()).as(r.err()).isZero();
    String token = r.out().strip();
    String id = token.substring(0, token.indexOf('.'));
    String secret = UsedSecrets.record(token.substring(token.indexOf('.') + 1));
    assertThat(r.err()).contains("created key " + id).doesNotContain(secret);
    try (LoamNode n = LoamNode.builder().nodeId("node-1").dataDir(data).start()) {
      assertThat(n.log().hasActiveApiKeys()).isTrue();
      Principal p = n.log().authenticate(id, secret).get(30, TimeUnit.SECONDS);
      assertThat(p.clusterAdmin()).isTrue();
      assertThat(p.roles()).contains(Role.PRODUCE, Role.CONSUME, Role.ADMIN);
      assertThat(n.log().listNodes(java.util.Optional.empty()).get(30, TimeUnit.SECONDS))
          .extracting(d -> d.nodeId())
          .containsExactly("node-1");
    }
  }

  @Test
  void refusesANodeDirectoryAndTheOnlineFlags() throws Exception {
    Path nodeDir = Files.createDirectories(dir.resolve("member"));
    Files.writeString(nodeDir.resolve(OfflineKeys.NODE_IDENTITY), "id=n1\n");
    Run r = keys("create", "--data-dir", nodeDir.toString(), "--roles", "cluster-admin");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).contains("belongs to a ./loam node");
    Run both =
        keys(
            "create",
            "--data-dir",
            dir.toString(),
            "--url",
            "http://127.0.0.1:1",
            "--roles",
            "produce");
    assertThat(both.status()).isEqualTo(2);
    assertThat(both.err()).contains("--data-dir").contains("--url and --key do not apply");
    Run nodeIdAlone = keys("create", "--node-id", "x", "--roles", "produce");
    assertThat(nodeIdAlone.status()).isEqualTo(2);
    assertThat(nodeIdAlone.err()).contains("--node-id").contains("needs --data-dir");
    Run missing =
        keys("create", "--data-dir", dir.resolve("absent").toString(), "--roles", "produce");
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err()).contains("is not a directory");
  }
}
