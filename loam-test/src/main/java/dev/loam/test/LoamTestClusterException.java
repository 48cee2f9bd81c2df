package dev.loam.test;

/**
 * A {@link LoamTestCluster} wait that did not finish in time, or failed: a node that did not start,
 * a replica that did not catch up, a stream not visible on a node. The message names what was
 * awaited; the cause is the failure, if there was one.
 */
public final class LoamTestClusterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LoamTestClusterException(String message) {
    super(message);
  }

  LoamTestClusterException(String message, Throwable cause) {
    super(message, cause);
  }
}
