package dev.loam.examples;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.LoamNode;
import dev.loam.api.Role;
import dev.loam.error.LoamException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code ./loam keys create --data-dir DIR}: creates an API key in the data directory of a stopped
 * {@code ./loam server} (a single node whose metastore lives in that directory), by starting the
 * node there without serving anything, creating the key and stopping. The way to the first key when
 * the server cannot be reached from its own machine (or should never serve unauthenticated, not
 * even on loopback). The node must be stopped: its metastore's lock refuses a second opener. A
 * {@code ./loam node} data directory is refused: its metastore is replicated, and a key is created
 * through a running member (the loopback bootstrap, docs/security.md).
 */
final class OfflineKeys {
  private OfflineKeys() {}

  /** The identity file of a {@code ./loam node} data directory. */
  static final String NODE_IDENTITY = "loam-node.properties";

  /**
   * Creates the key and prints its token on {@code out}; returns the exit status (0, or 1 naming
   * the problem on {@code err}).
   */
  static int create(
      Path dataDir,
      String nodeId,
      String store,
      String namespace,
      Set<Role> roles,
      PrintStream out,
      PrintStream err) {
    String cmd = "loam keys create: ";
    if (!Files.isDirectory(dataDir)) {
      err.println(cmd + "--data-dir " + dataDir + " is not a directory");
      return 1;
    }
    if (Files.exists(dataDir.resolve(NODE_IDENTITY))) {
      err.println(
          cmd
              + "--data-dir "
              + dataDir
              + " belongs to a ./loam node, whose metastore is replicated: create the key"
              + " through a running member (--url, docs/security.md \"The first key\")");
      return 1;
    }
    ApiKeySpec spec;
    try {
      Role first = roles.iterator().next();
      Role[] more = roles.stream().skip(1).toArray(Role[]::new);
      spec =
          namespace == null
              ? ApiKeySpec.clusterWide(first, more)
              : ApiKeySpec.inNamespace(namespace, first, more);
    } catch (LoamException e) {
      err.println(cmd + e.getMessage());
      return 1;
    }
    LoamNode.Builder b = LoamNode.builder().nodeId(nodeId).dataDir(dataDir);
    if (store != null) {
      b.storeUri(store);
    }
    try (LoamNode node = b.start()) {
      CreatedApiKey k = node.log().createApiKey(spec).get(60, TimeUnit.SECONDS);
      out.println(k.token());
      err.println(
          "loam keys: created key "
              + k.key().id()
              + " in "
              + dataDir
              + "; the token above is shown only now: keep it secret");
      return 0;
    } catch (LoamException e) {
      err.println(
          cmd
              + "cannot open --data-dir "
              + dataDir
              + " (is its server running?): "
              + e.getMessage());
      return 1;
    } catch (ExecutionException e) {
      err.println(cmd + e.getCause().getMessage());
      return 1;
    } catch (TimeoutException e) {
      err.println(cmd + "the metastore did not apply the key within 60 s");
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }
}
