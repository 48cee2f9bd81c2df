package dev.loam.grpc.internal;

import com.google.protobuf.UnsafeByteOperations;
import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.ConsumerState;
import dev.loam.api.Durability;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.api.NodeDescription;
import dev.loam.api.OffsetSpec;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.grpc.v1.ListOffsetsRequest;
import dev.loam.grpc.v1.PartitionBounds;
import dev.loam.grpc.v1.ProduceResponse;
import dev.loam.grpc.v1.Record;
import dev.loam.grpc.v1.RecordPosition;
import dev.loam.grpc.v1.UpdateStreamRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Converts between the {@code loam.v1} messages and the embedded API's types, validating what a
 * request carries: every refusal is an INVALID {@code LoamException} naming the field and the
 * value, never another exception (a property test checks this on arbitrary messages).
 */
public final class Convert {
  /** The most records one Produce may carry. */
  public static final int MAX_RECORDS = 100_000;

  private Convert() {}

  /** The records of a Produce request. */
  public static List<AppendRecord> records(List<Record> in) {
    if (in.isEmpty()) {
      throw GrpcErrors.invalid("a produce needs at least one record records=0");
    }
    if (in.size() > MAX_RECORDS) {
      throw GrpcErrors.invalid(
          "too many records in one produce records=" + in.size() + " max=" + MAX_RECORDS);
    }
    List<AppendRecord> out = new ArrayList<>(in.size());
    for (int i = 0; i < in.size(); i++) {
      Record r = in.get(i);
      List<Header> headers = new ArrayList<>(r.getHeadersCount());
      for (int h = 0; h < r.getHeadersCount(); h++) {
        dev.loam.grpc.v1.Header ph = r.getHeaders(h);
        if (ph.getKey().isEmpty()) {
          throw GrpcErrors.invalid(
              "a header name must not be empty field=records[" + i + "].headers[" + h + "].key");
        }
        headers.add(new Header(ph.getKey(), ph.hasValue() ? ph.getValue().toByteArray() : null));
      }
      if (r.hasPartition() && r.getPartition() < 0) {
        throw GrpcErrors.invalid(
            "a partition must be >= 0 field=records["
                + i
                + "].partition value="
                + r.getPartition());
      }
      if (r.hasTimestampMs() && r.getTimestampMs() < 0) {
        throw GrpcErrors.invalid(
            "a timestamp must be >= 0 field=records["
                + i
                + "].timestamp_ms value="
                + r.getTimestampMs());
      }
      out.add(
          new AppendRecord(
              r.hasKey() ? r.getKey().toByteArray() : null,
              r.hasValue() ? r.getValue().toByteArray() : null,
              headers,
              r.hasTimestampMs() ? OptionalLong.of(r.getTimestampMs()) : OptionalLong.empty(),
              r.hasPartition() ? OptionalInt.of(r.getPartition()) : OptionalInt.empty()));
    }
    return out;
  }

  /**
   * The bytes a produce is charged against the ingest quota: keys, values, header names and values.
   */
  public static long bytes(List<AppendRecord> records) {
    long n = 0;
    for (AppendRecord r : records) {
      n += r.key() == null ? 0 : r.key().length;
      n += r.value() == null ? 0 : r.value().length;
      for (Header h : r.headers()) {
        n += h.key().length() + (h.value() == null ? 0 : h.value().length);
      }
    }
    return n;
  }

  /** The producer identity of a request. */
  public static ProducerIdentity producer(dev.loam.grpc.v1.ProducerIdentity p) {
    if (p.getProducerId() < 0) {
      throw GrpcErrors.invalid(
          "producer_id must be >= 0 field=producer.producer_id value=" + p.getProducerId());
    }
    if (p.getProducerEpoch() < 0 || p.getProducerEpoch() > Short.MAX_VALUE) {
      throw GrpcErrors.invalid(
          "producer_epoch must be within 0..32767 field=producer.producer_epoch value="
              + p.getProducerEpoch());
    }
    if (p.getBaseSequence() < 0) {
      throw GrpcErrors.invalid(
          "base_sequence must be >= 0 field=producer.base_sequence value=" + p.getBaseSequence());
    }
    return new ProducerIdentity(
        p.getProducerId(), (short) p.getProducerEpoch(), p.getBaseSequence());
  }

  /** A producer identity as a message. */
  public static dev.loam.grpc.v1.ProducerIdentity producer(ProducerIdentity p) {
    return dev.loam.grpc.v1.ProducerIdentity.newBuilder()
        .setProducerId(p.producerId())
        .setProducerEpoch(p.producerEpoch())
        .setBaseSequence(p.baseSequence())
        .build();
  }

  /** The answer to a produce. */
  public static ProduceResponse produced(AppendResult r) {
    ProduceResponse.Builder b =
        ProduceResponse.newBuilder()
            .setConsistencyToken(r.consistencyToken())
            .setDuplicate(r.duplicate());
    for (AppendResult.RecordPosition p : r.positions()) {
      b.addPositions(RecordPosition.newBuilder().setPartition(p.partition()).setOffset(p.offset()));
    }
    return b.build();
  }

  /**
   * A fetched record as a message. The record's arrays are wrapped, not copied: a fetched record is
   * never changed after the read, and the message is serialized once and dropped.
   */
  public static dev.loam.grpc.v1.FetchedRecord record(FetchedRecord r) {
    dev.loam.grpc.v1.FetchedRecord.Builder b =
        dev.loam.grpc.v1.FetchedRecord.newBuilder()
            .setPartition(r.partition())
            .setOffset(r.offset())
            .setTimestampMs(r.timestamp());
    if (r.key() != null) {
      b.setKey(UnsafeByteOperations.unsafeWrap(r.key()));
    }
    if (r.value() != null) {
      b.setValue(UnsafeByteOperations.unsafeWrap(r.value()));
    }
    for (Header h : r.headers()) {
      dev.loam.grpc.v1.Header.Builder hb = dev.loam.grpc.v1.Header.newBuilder().setKey(h.key());
      if (h.value() != null) {
        hb.setValue(UnsafeByteOperations.unsafeWrap(h.value()));
      }
      b.addHeaders(hb);
    }
    return b.build();
  }

  /** A stream spec of a create request. */
  public static StreamSpec spec(dev.loam.grpc.v1.StreamSpec s) {
    if (s.getPartitions() < 1) {
      throw GrpcErrors.invalid(
          "a stream needs at least one partition field=spec.partitions value=" + s.getPartitions());
    }
    Durability d =
        switch (s.getDurability()) {
          case DURABILITY_UNSPECIFIED, DURABILITY_STANDARD -> Durability.STANDARD;
          case DURABILITY_EXPRESS -> Durability.EXPRESS;
          case DURABILITY_QUORUM -> Durability.QUORUM;
          case UNRECOGNIZED ->
              throw GrpcErrors.invalid(
                  "unknown durability field=spec.durability value=" + s.getDurabilityValue());
        };
    return new StreamSpec(
        s.getPartitions(),
        d,
        retention("spec.retention_ms", s.getRetentionMs()),
        retention("spec.retention_bytes", s.getRetentionBytes()),
        s.getCompacted());
  }

  private static long retention(String field, long v) {
    if (v == 0) {
      return -1;
    }
    if (v < -1) {
      throw GrpcErrors.invalid(
          "a retention is -1 (unlimited) or positive field=" + field + " value=" + v);
    }
    return v;
  }

  /** The update of an UpdateStream request. */
  public static StreamUpdate update(UpdateStreamRequest r) {
    return new StreamUpdate(
        r.hasRetentionMs() ? r.getRetentionMs() : null,
        r.hasRetentionBytes() ? r.getRetentionBytes() : null,
        r.hasCompacted() ? r.getCompacted() : null);
  }

  /** A stream as a message. */
  public static dev.loam.grpc.v1.StreamDescription stream(StreamDescription d) {
    dev.loam.grpc.v1.StreamDescription.Builder b =
        dev.loam.grpc.v1.StreamDescription.newBuilder()
            .setId(d.id())
            .setNamespace(d.namespace())
            .setName(d.name())
            .setSpec(
                dev.loam.grpc.v1.StreamSpec.newBuilder()
                    .setPartitions(d.spec().partitions())
                    .setDurability(
                        switch (d.spec().durabilityClass()) {
                          case STANDARD -> dev.loam.grpc.v1.Durability.DURABILITY_STANDARD;
                          case EXPRESS -> dev.loam.grpc.v1.Durability.DURABILITY_EXPRESS;
                          case QUORUM -> dev.loam.grpc.v1.Durability.DURABILITY_QUORUM;
                        })
                    .setRetentionMs(d.spec().retentionMillis())
                    .setRetentionBytes(d.spec().retentionBytes())
                    .setCompacted(d.spec().compacted()));
    for (StreamDescription.PartitionBounds p : d.partitions()) {
      b.addPartitions(
          PartitionBounds.newBuilder()
              .setPartition(p.partition())
              .setLogStartOffset(p.logStartOffset())
              .setHighWatermark(p.highWatermark()));
    }
    return b.build();
  }

  /** The offset query of a ListOffsets request. */
  public static OffsetSpec offsetSpec(ListOffsetsRequest r) {
    return switch (r.getQuery()) {
      case OFFSET_QUERY_EARLIEST -> OffsetSpec.earliest();
      case OFFSET_QUERY_LATEST -> OffsetSpec.latest();
      case OFFSET_QUERY_TIMESTAMP -> OffsetSpec.forTimestamp(r.getTimestampMs());
      case OFFSET_QUERY_UNSPECIFIED, UNRECOGNIZED ->
          throw GrpcErrors.invalid(
              "query must be earliest, latest or timestamp field=query value=" + r.getQueryValue());
    };
  }

  /** A named consumer's state as a message. */
  public static dev.loam.grpc.v1.ConsumerState consumer(ConsumerState s) {
    dev.loam.grpc.v1.ConsumerState.Builder b =
        dev.loam.grpc.v1.ConsumerState.newBuilder()
            .setNamespace(s.namespace())
            .setStream(s.stream())
            .setPartition(s.partition())
            .setConsumer(s.consumer())
            .setGeneration(s.generation())
            .setHolder(s.holder() == null ? "" : s.holder())
            .setLeaseExpiresAtMs(s.leaseExpiresAtMillis());
    s.committedOffset().ifPresent(b::setCommittedOffset);
    return b.build();
  }

  /** A node as a message. */
  public static dev.loam.grpc.v1.Node node(NodeDescription n) {
    return dev.loam.grpc.v1.Node.newBuilder()
        .setNodeId(n.nodeId())
        .setEpoch(n.epoch())
        .setAdvertisedAddress(n.advertisedAddress() == null ? "" : n.advertisedAddress())
        .setZone(n.zone() == null ? "" : n.zone())
        .setSlots(n.slots())
        .putAllEndpoints(n.endpoints())
        .build();
  }

  /** A partition number of a request. */
  public static int partition(int p) {
    if (p < 0) {
      throw GrpcErrors.invalid("a partition must be >= 0 field=partition value=" + p);
    }
    return p;
  }

  /** A required name of a request. */
  public static String required(String field, String value) {
    if (value.isEmpty()) {
      throw GrpcErrors.invalid(field + " is required field=" + field);
    }
    return value;
  }
}
