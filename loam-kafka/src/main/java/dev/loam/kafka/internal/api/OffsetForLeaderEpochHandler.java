package dev.loam.kafka.internal.api;

import dev.loam.api.StreamDescription;
import dev.loam.kafka.internal.cluster.Topics;
import java.util.ArrayList;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;

/**
 * OffsetForLeaderEpoch (KIP-320 truncation detection). Loam's offsets are never truncated, and a
 * partition has had one "epoch" since it was created: every requested epoch answers epoch 0 ending
 * at the high watermark, so a client that validates its position finds nothing to truncate.
 * Metadata answers leader epoch -1, so clients normally never send this request.
 */
public final class OffsetForLeaderEpochHandler implements ApiHandler {
  private final Topics topics;

  public OffsetForLeaderEpochHandler(Topics topics) {
    this.topics = topics;
  }

  @Override
  public CompletableFuture<Optional<ApiMessage>> handle(ClientRequest request) {
    OffsetsForLeaderEpochRequest req = (OffsetsForLeaderEpochRequest) request.body();
    return Futures.describeAll(
            topics,
            request.namespace(),
            req.data().topics().stream().map(OffsetForLeaderTopic::topic).toList())
        .thenApply(
            streams -> {
              OffsetForLeaderEpochResponseData r =
                  new OffsetForLeaderEpochResponseData().setThrottleTimeMs(0);
              for (OffsetForLeaderTopic t : req.data().topics()) {
                Optional<StreamDescription> d = streams.get(t.topic());
                OffsetForLeaderTopicResult tr =
                    new OffsetForLeaderTopicResult()
                        .setTopic(t.topic())
                        .setPartitions(new ArrayList<>());
                for (OffsetForLeaderPartition p : t.partitions()) {
                  Optional<StreamDescription.PartitionBounds> b =
                      d.flatMap(s -> Futures.partition(s, p.partition()));
                  tr.partitions()
                      .add(
                          b.isEmpty()
                              ? new EpochEndOffset()
                                  .setPartition(p.partition())
                                  .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                                  .setLeaderEpoch(-1)
                                  .setEndOffset(-1)
                              : new EpochEndOffset()
                                  .setPartition(p.partition())
                                  .setErrorCode(Errors.NONE.code())
                                  .setLeaderEpoch(0)
                                  .setEndOffset(b.get().highWatermark()));
                }
                r.topics().add(tr);
              }
              return Optional.of(r);
            });
  }
}
