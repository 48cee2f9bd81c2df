package dev.loam.core.write;

import dev.loam.core.write.WalWriter.BatchAck;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/**
 * The batches that will become one WAL object: each batch in a slot that remembers which append
 * call submitted it. Guarded by its {@link WalWriter} until the writer hands it to a {@link
 * WalFlight}, which then only reads it.
 */
final class WalBuffer {
  final List<Slot> slots = new ArrayList<>();
  long bytes;
  ScheduledFuture<?> timer;

  /** A group of batches from one append call; completes when all of them have a verdict. */
  static final class Submission {
    final CompletableFuture<List<BatchAck>> future = new CompletableFuture<>();
    final BatchAck[] acks;
    int remaining;

    Submission(int n) {
      acks = new BatchAck[n];
      remaining = n;
    }

    /**
     * Records the verdict of batch {@code index}; the future completes on {@link #completeIfDone}
     * once every batch has one, so that a buffer's submissions can complete in submission order.
     */
    synchronized void record(int index, BatchAck ack) {
      acks[index] = ack;
      remaining--;
    }

    /** Completes the future if every batch has its verdict (a second call does nothing). */
    void completeIfDone() {
      List<BatchAck> all;
      synchronized (this) {
        if (remaining != 0) {
          return;
        }
        all = List.of(acks);
      }
      future.complete(all);
    }
  }

  /** One batch of a buffer: its bytes, and which submission (and which of its batches) it is. */
  record Slot(PendingBatch batch, Submission owner, int index) {}

  /** Fails every submission with a batch in this buffer (the first verdict of each wins). */
  void failAll(Throwable e) {
    for (Slot s : slots) {
      s.owner().future.completeExceptionally(e);
    }
  }
}
