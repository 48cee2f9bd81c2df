package dev.loam.test;

import dev.loam.test.LoamTestCluster.Mode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a JUnit 5 test a started {@link LoamTestCluster}: on a test method (or its class, for every
 * test of it), a {@code LoamTestCluster} parameter of the test, or of a {@code @BeforeEach} or
 * {@code @AfterEach} method, receives the test's cluster (one per test), which is closed after the
 * test.
 *
 * <pre>{@code
 * @Test
 * @LoamCluster(nodes = 3)
 * void survivesAKill(LoamTestCluster cluster) { ... }
 * }</pre>
 *
 * <p>The values are those of {@link LoamTestCluster.Builder}; a test that needs more (a store
 * directory, settings) builds the cluster itself.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(LoamClusterExtension.class)
public @interface LoamCluster {
  /** How many nodes. */
  int nodes() default 3;

  /** Where the metadata lives. */
  Mode mode() default Mode.RATIS;

  /** Zones, assigned to the nodes round-robin; none by default. */
  String[] zones() default {};

  /** How long a node buffers appends before it writes them. */
  long flushIntervalMillis() default 5;

  /**
   * How long a killed node keeps its streams before another node takes them over; see {@link
   * LoamTestCluster.Builder#livenessTimeout}.
   */
  long livenessTimeoutMillis() default 10_000;

  /** The bound of every wait of the cluster. */
  long timeoutSeconds() default 30;
}
