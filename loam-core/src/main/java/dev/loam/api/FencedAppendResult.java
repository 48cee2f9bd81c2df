package dev.loam.api;

import java.util.List;

/**
 * The answer to a fenced append: per source group, in order, whether it was appended now (at which
 * offsets) or was already there, and the source position after the append.
 *
 * @param groups one entry per group of the append
 * @param sourceUpto the highest source position appended after this append
 * @param consistencyToken the metastore index the append was committed at (see {@link
 *     AppendResult#consistencyToken()})
 */
public record FencedAppendResult(List<Group> groups, long sourceUpto, long consistencyToken) {
  public FencedAppendResult {
    groups = List.copyOf(groups);
  }

  /** Whether nothing was appended: every group was already there (a retry). */
  public boolean allAlreadyAppended() {
    return groups.stream().noneMatch(g -> g.status() == Status.APPENDED);
  }

  /**
   * One group's answer.
   *
   * @param baseOffset the offset of the group's first record when APPENDED; -1 when
   *     ALREADY_APPENDED (its records are in the partition from an earlier append)
   */
  public record Group(long sourceFrom, long sourceTo, Status status, long baseOffset) {}

  /** What happened to one group. */
  public enum Status {
    /** Appended by this call. */
    APPENDED,
    /** Already in the partition, appended by an earlier call (a retry); nothing appended now. */
    ALREADY_APPENDED
  }
}
