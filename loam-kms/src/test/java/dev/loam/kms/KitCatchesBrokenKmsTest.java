package dev.loam.kms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The kit fails the services it should: runs it through the JUnit Platform on a service whose
 * destroy reports success but shreds nothing, and checks exactly the destroy cases fail. The broken
 * kit is {@code @Disabled}, so the build never runs it by itself.
 */
class KitCatchesBrokenKmsTest {

  /** Destroy succeeds and does nothing: the wrapped keys stay readable. */
  @Disabled("run by KitCatchesBrokenKmsTest, which expects its failures")
  static class DestroyDoesNothingKit extends KmsContractTest {
    private Path file;

    @Override
    protected KeyManagementService newKms() throws Exception {
      file = Files.createTempDirectory("kms-kit").resolve("k.p12");
      return new DestroyDoesNothing(new Pkcs12KeyManagementService(file, "pw".toCharArray()));
    }

    @Override
    protected KeyManagementService openAnotherHandle() {
      return new DestroyDoesNothing(new Pkcs12KeyManagementService(file, "pw".toCharArray()));
    }
  }

  record DestroyDoesNothing(KeyManagementService d) implements KeyManagementService {
    @Override
    public CompletableFuture<KeyVersion> create(String ns) {
      return d.create(ns);
    }

    @Override
    public CompletableFuture<KeyVersion> current(String ns) {
      return d.current(ns);
    }

    @Override
    public CompletableFuture<byte[]> wrap(String ns, byte[] p) {
      return d.wrap(ns, p);
    }

    @Override
    public CompletableFuture<byte[]> unwrap(String ns, byte[] w) {
      return d.unwrap(ns, w);
    }

    @Override
    public CompletableFuture<KeyVersion> rotate(String ns) {
      return d.rotate(ns);
    }

    @Override
    public CompletableFuture<Void> destroy(String ns) {
      return d.current(ns).thenApply(v -> null);
    }

    @Override
    public void close() {
      d.close();
    }
  }

  @Test
  void aDestroyThatShredsNothingFailsTheDestroyCases() {
    assertThat(failedCases(DestroyDoesNothingKit.class))
        .containsExactlyInAnyOrder(
            "destroyShredsEveryVersionOfThatNamespaceOnly",
            "anotherHandleSeesCreateRotateAndDestroy");
  }

  private static Set<String> failedCases(Class<?> kit) {
    Set<String> failed = new TreeSet<>();
    Set<String> finished = ConcurrentHashMap.newKeySet();
    TestExecutionListener listener =
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.getSource().orElse(null) instanceof MethodSource m) {
              finished.add(m.getMethodName());
              if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                synchronized (failed) {
                  failed.add(m.getMethodName());
                }
              }
            }
          }
        };
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(kit))
                .configurationParameter(
                    "junit.jupiter.conditions.deactivate", "org.junit.*DisabledCondition")
                .build(),
            listener);
    assertThat(finished).as("cases run").hasSize(13);
    return failed;
  }
}
