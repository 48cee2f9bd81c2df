package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Producer ids and named consumers (stream-engine.txt §7): the producer-id counter, and each named
 * consumer's lease and committed offset by (stream, partition, consumer). Applies their commands,
 * drops a deleted stream's consumers, and writes and reads its snapshot section.
 */
final class ConsumerTable {
  /**
   * Named consumers per partition at most (STYLE.md §9): bounds the state one partition can hold
   * and the snapshot it adds.
   */
  static final int MAX_CONSUMERS_PER_PARTITION = 1024;

  private final Catalog catalog;

  /** The next producer id handed out (§7 idempotent producers); only grows. */
  private long nextProducerId;

  /** Named consumers' leases and committed offsets (§7), by (stream id, partition, consumer). */
  private final TreeMap<ConsumerKey, ConsumerLease> consumers = new TreeMap<>();

  ConsumerTable(Catalog catalog) {
    this.catalog = catalog;
  }

  /** The key of a named consumer's state; sorted so reads and snapshots are ordered. */
  private record ConsumerKey(long streamId, int partition, String consumer)
      implements Comparable<ConsumerKey> {
    @Override
    public int compareTo(ConsumerKey o) {
      int c = Long.compare(streamId, o.streamId);
      if (c == 0) {
        c = Integer.compare(partition, o.partition);
      }
      return c != 0 ? c : consumer.compareTo(o.consumer);
    }
  }

  // ---- the rules

  Outcome allocateProducerIds(AllocateProducerIds c) {
    if (c.count() < 1 || c.count() > AllocateProducerIds.MAX_COUNT) {
      return rejected(
          RejectReason.INVALID,
          "producer id count must be 1.." + AllocateProducerIds.MAX_COUNT + " count=" + c.count());
    }
    if (nextProducerId > Long.MAX_VALUE - c.count()) {
      return rejected(
          RejectReason.INVALID,
          "producer ids exhausted nextProducerId=" + nextProducerId + " count=" + c.count());
    }
    long first = nextProducerId;
    nextProducerId += c.count();
    return new Outcome.ProducerIdsAllocated(first, c.count());
  }

  Outcome acquireConsumerLease(AcquireConsumerLease c, long clockMillis) {
    String where = consumerText(c.streamId(), c.partition(), c.consumer());
    if (!Catalog.validName(c.consumer())) {
      return Catalog.invalidName("consumer", c.consumer());
    }
    if (c.holder().isEmpty() || c.holder().length() > AcquireConsumerLease.MAX_HOLDER_LENGTH) {
      return rejected(
          RejectReason.INVALID,
          "holder must be 1.."
              + AcquireConsumerLease.MAX_HOLDER_LENGTH
              + " characters"
              + where
              + " holderLength="
              + c.holder().length());
    }
    if (c.leaseMillis() < 1 || c.leaseMillis() > AcquireConsumerLease.MAX_LEASE_MILLIS) {
      return rejected(
          RejectReason.INVALID,
          "leaseMillis must be 1.."
              + AcquireConsumerLease.MAX_LEASE_MILLIS
              + where
              + " leaseMillis="
              + c.leaseMillis());
    }
    if (catalog.partitionState(c.streamId(), c.partition()) == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream or partition" + where);
    }
    ConsumerKey key = new ConsumerKey(c.streamId(), c.partition(), c.consumer());
    ConsumerLease cur = consumers.get(key);
    long expires = saturatedAdd(clockMillis, c.leaseMillis());
    ConsumerLease next;
    if (cur == null) {
      int held = consumersOf(c.streamId(), c.partition()).size();
      if (held >= MAX_CONSUMERS_PER_PARTITION) {
        return rejected(
            RejectReason.INVALID,
            "too many named consumers on the partition max=" + MAX_CONSUMERS_PER_PARTITION + where);
      }
      next =
          new ConsumerLease(
              c.streamId(),
              c.partition(),
              c.consumer(),
              1,
              c.holder(),
              c.leaseMillis(),
              expires,
              ConsumerLease.NO_OFFSET);
    } else if (cur.liveAt(clockMillis)) {
      if (!cur.holder().equals(c.holder())) {
        // A live lease is never taken over: the holder may be committing right now. It ends by
        // expiry (the metastore clock passing expiresAt), after which anyone may acquire.
        return rejected(
            RejectReason.CONFLICT,
            "the consumer lease is held by another holder"
                + where
                + " holder="
                + cur.holder()
                + " generation="
                + cur.generation()
                + " expiresAtMillis="
                + cur.expiresAtMillis()
                + " clock="
                + clockMillis);
      }
      // The holder renews (a heartbeat, or a retry of its acquire): same generation.
      next =
          new ConsumerLease(
              cur.streamId(),
              cur.partition(),
              cur.consumer(),
              cur.generation(),
              cur.holder(),
              c.leaseMillis(),
              expires,
              cur.committedOffset());
    } else {
      // Expired: a new term with a higher generation, which fences every commit of the old one,
      // even by the same holder (it may be a zombie of itself). The committed offset stays.
      next =
          new ConsumerLease(
              cur.streamId(),
              cur.partition(),
              cur.consumer(),
              cur.generation() + 1,
              c.holder(),
              c.leaseMillis(),
              expires,
              cur.committedOffset());
    }
    consumers.put(key, next);
    return new Outcome.ConsumerLeaseGranted(next);
  }

  Outcome commitConsumerOffset(CommitConsumerOffset c, long clockMillis) {
    String where = consumerText(c.streamId(), c.partition(), c.consumer());
    if (!Catalog.validName(c.consumer())) {
      return Catalog.invalidName("consumer", c.consumer());
    }
    PartitionState p = catalog.partitionState(c.streamId(), c.partition());
    if (p == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream or partition" + where);
    }
    ConsumerLease cur = consumers.get(new ConsumerKey(c.streamId(), c.partition(), c.consumer()));
    // Fencing before range checks: a stale holder learns only that it is stale (§7).
    if (cur == null) {
      return rejected(
          RejectReason.FENCED,
          "the consumer holds no lease on the partition" + where + " generation=" + c.generation());
    }
    if (c.generation() != cur.generation()) {
      return rejected(
          RejectReason.FENCED,
          "stale consumer generation"
              + where
              + " generation="
              + c.generation()
              + " currentGeneration="
              + cur.generation());
    }
    if (!cur.liveAt(clockMillis)) {
      return rejected(
          RejectReason.FENCED,
          "the consumer lease expired"
              + where
              + " generation="
              + c.generation()
              + " expiresAtMillis="
              + cur.expiresAtMillis()
              + " clock="
              + clockMillis);
    }
    if (c.offset() < p.logStartOffset || c.offset() > p.highWatermark) {
      return rejected(
          RejectReason.OUT_OF_RANGE,
          "committed offset out of range"
              + where
              + " offset="
              + c.offset()
              + " logStartOffset="
              + p.logStartOffset
              + " highWatermark="
              + p.highWatermark);
    }
    // A commit proves the holder is alive: it renews the lease.
    ConsumerLease next =
        new ConsumerLease(
            cur.streamId(),
            cur.partition(),
            cur.consumer(),
            cur.generation(),
            cur.holder(),
            cur.leaseMillis(),
            saturatedAdd(clockMillis, cur.leaseMillis()),
            c.offset());
    consumers.put(new ConsumerKey(c.streamId(), c.partition(), c.consumer()), next);
    return new Outcome.ConsumerOffsetCommitted(next);
  }

  /**
   * Drops a deleted stream's named consumers: a stream re-created under its name is another stream
   * (new id) and starts without committed offsets.
   */
  void dropStream(long streamId) {
    consumersOf(streamId).clear();
  }

  private static String consumerText(long streamId, int partition, String consumer) {
    return " streamId=" + streamId + " partition=" + partition + " consumer=" + consumer;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  /** Every consumer entry of one stream (a live view). */
  private NavigableMap<ConsumerKey, ConsumerLease> consumersOf(long streamId) {
    return consumers.subMap(
        new ConsumerKey(streamId, Integer.MIN_VALUE, ""),
        true,
        // Partitions are below StreamConfig.MAX_PARTITIONS, so this bound excludes none.
        new ConsumerKey(streamId, Integer.MAX_VALUE, ""),
        false);
  }

  /** Every consumer entry of one partition (a live view). */
  private NavigableMap<ConsumerKey, ConsumerLease> consumersOf(long streamId, int partition) {
    return consumers.subMap(
        new ConsumerKey(streamId, partition, ""),
        true,
        new ConsumerKey(streamId, partition + 1, ""),
        false);
  }

  // ---- reads

  long nextProducerId() {
    return nextProducerId;
  }

  Optional<ConsumerLease> lease(long streamId, int partition, String consumer) {
    if (consumer == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(consumers.get(new ConsumerKey(streamId, partition, consumer)));
  }

  List<ConsumerLease> leases(long streamId, String consumer) {
    List<ConsumerLease> out = new ArrayList<>();
    for (ConsumerLease l : consumersOf(streamId).values()) {
      if (l.consumer().equals(consumer)) {
        out.add(l);
      }
    }
    return out;
  }

  int size() {
    return consumers.size();
  }

  /** No producer id handed out and no named consumer: nothing for a version 3 section to hold. */
  boolean isDefault() {
    return nextProducerId == 0 && consumers.isEmpty();
  }

  // ---- snapshot section (version 3 and later, docs/formats/metastore-snapshot.md)

  /** The producer-id counter, then the named consumers by key. */
  void write(BinaryWriter w) {
    w.i64(nextProducerId);
    w.i32(consumers.size());
    for (ConsumerLease l : consumers.values()) {
      CommandCodec.writeLease(w, l);
    }
  }

  /** Reads the section {@link #write} wrote; the catalog must be restored first. */
  void read(BinaryReader r) {
    nextProducerId = r.i64("nextProducerId");
    if (nextProducerId < 0) {
      throw r.corrupt("nextProducerId", "negative nextProducerId=" + nextProducerId);
    }
    int nConsumers = r.count("consumers.count", 8 + 4 + 4 + 8 + 4 + 8 + 8 + 8);
    ConsumerKey prevKey = null;
    for (int i = 0; i < nConsumers; i++) {
      ConsumerLease l = CommandCodec.readLease(r, "consumer");
      ConsumerKey key = new ConsumerKey(l.streamId(), l.partition(), l.consumer());
      if (prevKey != null && prevKey.compareTo(key) >= 0) {
        throw r.corrupt("consumer", "consumers not sorted or duplicate consumer=" + l.consumer());
      }
      if (catalog.partitionState(l.streamId(), l.partition()) == null) {
        throw r.corrupt(
            "consumer.streamId",
            "consumer of an unknown stream or partition streamId="
                + l.streamId()
                + " partition="
                + l.partition());
      }
      if (l.generation() < 1 || l.committedOffset() < ConsumerLease.NO_OFFSET) {
        throw r.corrupt(
            "consumer.generation",
            "bad generation or offset generation="
                + l.generation()
                + " committedOffset="
                + l.committedOffset());
      }
      consumers.put(key, l);
      prevKey = key;
    }
  }
}
