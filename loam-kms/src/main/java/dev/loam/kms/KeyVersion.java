package dev.loam.kms;

import java.util.Objects;

/** One version of a namespace's master key: 1 at creation, one more per rotation. */
public record KeyVersion(String namespace, int version) {
  /**
   * @throws NullPointerException if {@code namespace} is null
   * @throws IllegalArgumentException if {@code version < 1}
   */
  public KeyVersion {
    Objects.requireNonNull(namespace, "namespace");
    if (version < 1) {
      throw new IllegalArgumentException("key version must be >= 1 version=" + version);
    }
  }
}
