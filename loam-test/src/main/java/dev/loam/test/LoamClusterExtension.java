package dev.loam.test;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link LoamCluster}: resolves {@link LoamTestCluster} parameters,
 * starting one cluster per test as the nearest {@code @LoamCluster} says, and closes it after the
 * test. A parameter resolved in a class-level context (a {@code @BeforeAll} method) gets a cluster
 * kept in that context and closed after the class. Closing is done by the callbacks themselves
 * rather than left to the store, so it works alike on every JUnit 5 version.
 */
public final class LoamClusterExtension
    implements ParameterResolver, AfterEachCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(LoamClusterExtension.class);
  private static final String KEY = "cluster";

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LoamTestCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    LoamTestCluster existing = store.get(KEY, LoamTestCluster.class);
    if (existing != null) {
      return existing;
    }
    LoamCluster spec =
        find(context)
            .orElseThrow(
                () ->
                    new ParameterResolutionException(
                        "a LoamTestCluster parameter needs @LoamCluster on the test method or"
                            + " class test="
                            + context.getDisplayName()));
    LoamTestCluster cluster =
        LoamTestCluster.builder()
            .nodes(spec.nodes())
            .mode(spec.mode())
            .zones(spec.zones())
            .flushInterval(Duration.ofMillis(spec.flushIntervalMillis()))
            .livenessTimeout(Duration.ofMillis(spec.livenessTimeoutMillis()))
            .timeout(Duration.ofSeconds(spec.timeoutSeconds()))
            .start();
    store.put(KEY, cluster);
    return cluster;
  }

  private static Optional<LoamCluster> find(ExtensionContext context) {
    Optional<LoamCluster> onMethod =
        context
            .getTestMethod()
            .flatMap(m -> AnnotationSupport.findAnnotation(m, LoamCluster.class));
    if (onMethod.isPresent()) {
      return onMethod;
    }
    return context
        .getTestClass()
        .flatMap(c -> AnnotationSupport.findAnnotation(c, LoamCluster.class));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    closeIn(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    closeIn(context);
  }

  private static void closeIn(ExtensionContext context) {
    LoamTestCluster cluster = context.getStore(NAMESPACE).remove(KEY, LoamTestCluster.class);
    if (cluster != null) {
      cluster.close();
    }
  }
}
