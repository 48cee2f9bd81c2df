package dev.loam.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.loam.api.AppendRecord;
import dev.loam.api.ProducerIdentity;
import dev.loam.api.StreamSpec;
import dev.loam.error.LoamException;
import dev.loam.grpc.v1.Header;
import dev.loam.grpc.v1.ListOffsetsRequest;
import dev.loam.grpc.v1.Record;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The request conversion of the gRPC server: on any message, either the embedded API's values,
 * field for field, or an INVALID {@link LoamException} naming the field; never another exception.
 */
class ConvertPropertyTest {
  @Provide
  Arbitrary<Record> records() {
    Arbitrary<ByteString> bytes =
        Arbitraries.bytes().array(byte[].class).ofMaxSize(32).map(ByteString::copyFrom);
    Arbitrary<Header> headers =
        Combinators.combine(Arbitraries.strings().ofMaxLength(8), bytes.injectNull(0.3))
            .as(
                (k, v) -> {
                  Header.Builder h = Header.newBuilder().setKey(k);
                  if (v != null) {
                    h.setValue(v);
                  }
                  return h.build();
                });
    return Combinators.combine(
            bytes.injectNull(0.3),
            bytes.injectNull(0.2),
            headers.list().ofMaxSize(3),
            Arbitraries.longs().between(-5, Long.MAX_VALUE).injectNull(0.5),
            Arbitraries.integers().between(-3, 50).injectNull(0.5))
        .as(
            (k, v, h, ts, p) -> {
              Record.Builder b = Record.newBuilder().addAllHeaders(h);
              if (k != null) {
                b.setKey(k);
              }
              if (v != null) {
                b.setValue(v);
              }
              if (ts != null) {
                b.setTimestampMs(ts);
              }
              if (p != null) {
                b.setPartition(p);
              }
              return b.build();
            });
  }

  @Property(tries = 500)
  void recordsConvertFieldForFieldOrAreRefusedNamingTheField(
      @ForAll("recordLists") List<Record> in) {
    List<AppendRecord> out;
    try {
      out = Convert.records(in);
    } catch (LoamException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).contains("record");
      boolean bad =
          in.isEmpty()
              || in.stream()
                  .anyMatch(
                      r ->
                          (r.hasPartition() && r.getPartition() < 0)
                              || (r.hasTimestampMs() && r.getTimestampMs() < 0)
                              || r.getHeadersList().stream().anyMatch(h -> h.getKey().isEmpty()));
      assertThat(bad).as("refused only for a reason: " + e.getMessage()).isTrue();
      return;
    }
    assertThat(out).hasSameSizeAs(in);
    for (int i = 0; i < in.size(); i++) {
      Record r = in.get(i);
      AppendRecord a = out.get(i);
      assertThat(a.key()).isEqualTo(r.hasKey() ? r.getKey().toByteArray() : null);
      assertThat(a.value()).isEqualTo(r.hasValue() ? r.getValue().toByteArray() : null);
      assertThat(a.partition().isPresent()).isEqualTo(r.hasPartition());
      assertThat(a.timestamp().isPresent()).isEqualTo(r.hasTimestampMs());
      assertThat(a.headers()).hasSize(r.getHeadersCount());
      for (int h = 0; h < r.getHeadersCount(); h++) {
        assertThat(a.headers().get(h).key()).isEqualTo(r.getHeaders(h).getKey());
        assertThat(a.headers().get(h).value())
            .isEqualTo(
                r.getHeaders(h).hasValue() ? r.getHeaders(h).getValue().toByteArray() : null);
      }
    }
  }

  @Provide
  Arbitrary<List<Record>> recordLists() {
    return records().list().ofMaxSize(6);
  }

  @Property(tries = 500)
  void producerIdentitiesAreInRangeOrRefused(
      @ForAll long id, @ForAll int epoch, @ForAll int sequence) {
    dev.loam.grpc.v1.ProducerIdentity p =
        dev.loam.grpc.v1.ProducerIdentity.newBuilder()
            .setProducerId(id)
            .setProducerEpoch(epoch)
            .setBaseSequence(sequence)
            .build();
    boolean valid = id >= 0 && epoch >= 0 && epoch <= Short.MAX_VALUE && sequence >= 0;
    try {
      ProducerIdentity out = Convert.producer(p);
      assertThat(valid).isTrue();
      assertThat(Convert.producer(out)).isEqualTo(p);
    } catch (LoamException e) {
      assertThat(valid).isFalse();
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).contains("field=producer.");
    }
  }

  @Property(tries = 300)
  void streamSpecsConvertOrAreRefused(
      @ForAll int partitions,
      @ForAll("enumValues") int durability,
      @ForAll long retentionMs,
      @ForAll long retentionBytes,
      @ForAll boolean compacted) {
    dev.loam.grpc.v1.StreamSpec s =
        dev.loam.grpc.v1.StreamSpec.newBuilder()
            .setPartitions(partitions)
            .setDurabilityValue(durability)
            .setRetentionMs(retentionMs)
            .setRetentionBytes(retentionBytes)
            .setCompacted(compacted)
            .build();
    boolean valid =
        partitions >= 1
            && durability >= 0
            && durability <= 3
            && retentionMs >= -1
            && retentionBytes >= -1;
    try {
      StreamSpec out = Convert.spec(s);
      assertThat(valid).isTrue();
      assertThat(out.partitions()).isEqualTo(partitions);
      assertThat(out.retentionMillis()).isEqualTo(retentionMs == 0 ? -1 : retentionMs);
      assertThat(out.retentionBytes()).isEqualTo(retentionBytes == 0 ? -1 : retentionBytes);
      assertThat(out.compacted()).isEqualTo(compacted);
    } catch (LoamException e) {
      assertThat(valid).isFalse();
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).contains("field=spec.");
    }
  }

  @Property(tries = 200)
  void offsetQueriesConvertOrAreRefused(@ForAll("enumValues") int query, @ForAll long ts) {
    ListOffsetsRequest r =
        ListOffsetsRequest.newBuilder().setQueryValue(query).setTimestampMs(ts).build();
    try {
      Convert.offsetSpec(r);
      assertThat(query).isBetween(1, 3);
    } catch (LoamException e) {
      assertThat(query < 1 || query > 3).as("refused query " + query).isTrue();
      assertThat(e.getMessage()).contains("field=query");
    }
  }

  @Provide
  Arbitrary<Integer> enumValues() {
    return Arbitraries.integers().between(-2, 6);
  }

  @Property(tries = 100)
  void maxBytesIsZeroForTheDefaultOrWithinTheLimit(@ForAll int requested) {
    int limit = 1 << 20;
    try {
      int n = StreamServiceImpl.maxBytes(requested, limit);
      assertThat(n).isEqualTo(requested == 0 ? limit : requested);
      assertThat(requested).isBetween(0, limit);
    } catch (LoamException e) {
      assertThat(requested < 0 || requested > limit).isTrue();
      assertThat(e.getMessage()).contains("field=max_bytes");
    }
  }

  @net.jqwik.api.Example
  void tooManyRecordsAreRefused() {
    List<Record> many = new ArrayList<>();
    Record r = Record.getDefaultInstance();
    for (int i = 0; i <= Convert.MAX_RECORDS; i++) {
      many.add(r);
    }
    try {
      Convert.records(many);
      throw new AssertionError("accepted " + many.size() + " records");
    } catch (LoamException e) {
      assertThat(e.getMessage()).contains("too many records");
    }
  }
}
