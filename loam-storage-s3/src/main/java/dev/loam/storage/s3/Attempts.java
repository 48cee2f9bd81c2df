package dev.loam.storage.s3;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTP attempts of one SDK call, counted by an execution interceptor: how many were sent and
 * how many got a response. An attempt sent but never answered (timeout, connection closed) may have
 * been applied by S3, so a later attempt's 412 may be that attempt's own write.
 */
final class Attempts {
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicInteger answered = new AtomicInteger();

  void sent() {
    sent.incrementAndGet();
  }

  void answered() {
    answered.incrementAndGet();
  }

  int count() {
    return sent.get();
  }

  /** Whether some attempt was sent and got no response. */
  boolean unanswered() {
    return sent.get() > answered.get();
  }
}
