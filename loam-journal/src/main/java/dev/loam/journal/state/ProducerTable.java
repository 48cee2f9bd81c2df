package dev.loam.journal.state;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

/**
 * One partition's idempotent-producer state: per producer id its epoch and its last {@link
 * #BATCHES_KEPT} batches. The rules are the metastore sequencer's, Kafka's (stream-engine.txt §3
 * "Sequencer"); a property test holds the two to identical answers. Not thread-safe: owned by its
 * {@link JournalState}.
 */
final class ProducerTable {
  /** Batches remembered per producer, as Kafka and the sequencer keep. */
  static final int BATCHES_KEPT = 5;

  /** Producer id → state, sorted so snapshots are byte-identical across replicas. */
  final TreeMap<Long, Producer> producers = new TreeMap<>();

  /** What {@link #check} found. */
  enum Status {
    APPEND,
    DUPLICATE,
    OUT_OF_ORDER_SEQUENCE,
    PRODUCER_FENCED
  }

  /** The answer of {@link #check}; {@code duplicateOf} is set for DUPLICATE only. */
  record Check(Status status, Batch duplicateOf) {}

  /** One remembered batch. */
  record Batch(int baseSequence, int lastSequence, long baseOffset) {}

  /** One producer's epoch and last batches, oldest first. */
  static final class Producer {
    short epoch;
    final ArrayDeque<Batch> batches = new ArrayDeque<>();

    Producer(short epoch) {
      this.epoch = epoch;
    }
  }

  /** Runs the check for a batch of {@code recordCount} records; changes nothing. */
  Check check(long producerId, short epoch, int baseSequence, int recordCount) {
    if (producerId < 0) {
      return new Check(Status.APPEND, null);
    }
    Producer p = producers.get(producerId);
    if (p == null) {
      // Unknown producer (new, or its state was lost): any sequence starts it, as Kafka does.
      return new Check(Status.APPEND, null);
    }
    if (epoch < p.epoch) {
      return new Check(Status.PRODUCER_FENCED, null);
    }
    if (epoch > p.epoch) {
      return new Check(baseSequence == 0 ? Status.APPEND : Status.OUT_OF_ORDER_SEQUENCE, null);
    }
    int last = lastSequence(baseSequence, recordCount);
    for (Batch b : p.batches) {
      if (b.baseSequence() == baseSequence && b.lastSequence() == last) {
        return new Check(Status.DUPLICATE, b);
      }
    }
    if (baseSequence == nextSequence(p.batches.peekLast().lastSequence())) {
      return new Check(Status.APPEND, null);
    }
    return new Check(Status.OUT_OF_ORDER_SEQUENCE, null);
  }

  /** Remembers an appended batch (after {@link #check} answered APPEND). */
  void record(long producerId, short epoch, int baseSequence, int recordCount, long baseOffset) {
    if (producerId < 0) {
      return;
    }
    Producer p = producers.get(producerId);
    if (p == null) {
      p = new Producer(epoch);
      producers.put(producerId, p);
    } else if (epoch != p.epoch) {
      // A new epoch (accepted only at sequence 0) starts a fresh history.
      p.epoch = epoch;
      p.batches.clear();
    }
    p.batches.addLast(new Batch(baseSequence, lastSequence(baseSequence, recordCount), baseOffset));
    while (p.batches.size() > BATCHES_KEPT) {
      p.batches.removeFirst();
    }
  }

  Map<Long, Producer> view() {
    return producers;
  }

  /** Kafka's sequence arithmetic: sequences wrap from Integer.MAX_VALUE to 0. */
  static int lastSequence(int baseSequence, int recordCount) {
    return (int) (((long) baseSequence + recordCount - 1) % (1L + Integer.MAX_VALUE));
  }

  static int nextSequence(int lastSequence) {
    return lastSequence == Integer.MAX_VALUE ? 0 : lastSequence + 1;
  }
}
