package dev.loam.core.ownership;

import dev.loam.meta.MetaReader;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import java.util.ArrayList;
import java.util.List;

/**
 * The owned-partition scan every owner task (retention, the segmenter, the compactor) starts from:
 * the partitions of the streams this node holds open, each with the stream epoch its commands must
 * carry ({@code OwnerFenced}), as read in one metastore view.
 */
public final class OwnedPartitions {
  private OwnedPartitions() {}

  /**
   * A stream's partition with its bounds, and the stream epoch this node holds it open at, as read
   * in one view.
   */
  public record Part(StreamInfo stream, PartitionInfo bounds, long streamEpoch) {}

  /**
   * Every partition of every stream {@code nodeId} holds open at {@code nodeEpoch}, in (namespace,
   * stream, partition) order.
   */
  public static List<Part> ownedPartitions(MetaReader r, String nodeId, long nodeEpoch) {
    List<Part> out = new ArrayList<>();
    for (String ns : r.namespaces()) {
      for (StreamInfo s : r.streams(ns)) {
        StreamOwnership o = r.ownership(s.id()).orElse(null);
        if (o == null
            || o.state() != StreamOwnership.State.OPEN
            || !nodeId.equals(o.owner())
            || o.ownerEpoch() != nodeEpoch) {
          continue;
        }
        for (int p = 0; p < s.config().partitions(); p++) {
          r.partition(s.id(), p).ifPresent(b -> out.add(new Part(s, b, o.streamEpoch())));
        }
      }
    }
    return out;
  }
}
