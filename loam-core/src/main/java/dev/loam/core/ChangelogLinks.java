package dev.loam.core;

import dev.loam.api.ChangelogMode;
import dev.loam.meta.MetaReader;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.WriterLease;
import java.util.Optional;

/**
 * How a changelog stream X is linked to its compacted source S (docs/design/changelog.md "The
 * link"): X's partitions hold writer leases of source {@code changelog.<mode>.<S's id>}, created
 * with X, so the link, the mode and each partition's progress ({@code sourceUpto}) are one piece of
 * metastore state, replicated and snapshotted with the rest. X lives in S's namespace.
 */
public final class ChangelogLinks {
  private ChangelogLinks() {}

  /** The writer-lease source that links a changelog to {@code sourceStreamId} in {@code mode}. */
  public static String sourceName(ChangelogMode mode, long sourceStreamId) {
    return "changelog." + mode.wireName() + "." + sourceStreamId;
  }

  /** The mode of the changelog link of {@code x} to {@code sourceStreamId}, if it is one. */
  public static Optional<ChangelogMode> linkMode(MetaReader r, long x, long sourceStreamId) {
    for (ChangelogMode mode : ChangelogMode.values()) {
      if (r.writerLease(x, 0, sourceName(mode, sourceStreamId)).isPresent()) {
        return Optional.of(mode);
      }
    }
    return Optional.empty();
  }

  /**
   * The lowest offset of {@code partition} of {@code source} that one of its changelogs still needs
   * ({@code sourceUpto + 1} of that changelog partition), or {@link Long#MAX_VALUE} when it has
   * none: the compactor keeps every record at or above it ("Compaction and before-images").
   */
  public static long neededFrom(MetaReader r, StreamInfo source, int partition) {
    long min = Long.MAX_VALUE;
    for (StreamInfo x : r.streams(source.namespace())) {
      Optional<ChangelogMode> mode = linkMode(r, x.id(), source.id());
      if (mode.isEmpty()) {
        continue;
      }
      long upto =
          r.writerLease(x.id(), partition, sourceName(mode.get(), source.id()))
              .map(WriterLease::sourceUpto)
              .orElse(WriterLease.NOTHING);
      min = Math.min(min, upto + 1);
    }
    return min;
  }
}
