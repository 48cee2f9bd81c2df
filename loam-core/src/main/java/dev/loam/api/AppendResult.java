package dev.loam.api;

import java.util.List;

/**
 * The acknowledgement of an append: every record's partition and offset, in the order given, and
 * the consistency token (pass it to a fetch on any node to read your writes). An acknowledged
 * append is durable in the object store and committed in the metastore.
 *
 * @param duplicate true when an idempotent retry matched an earlier append (offsets are the earlier
 *     ones)
 */
public record AppendResult(
    List<RecordPosition> positions, long consistencyToken, boolean duplicate) {
  public AppendResult {
    positions = List.copyOf(positions);
  }

  /** Where one appended record landed. */
  public record RecordPosition(int partition, long offset) {}
}
