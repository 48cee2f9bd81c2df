package dev.loam.meta.command;

/**
 * Moves a partition's log start forward to {@code newLogStartOffset} under its stream's retention
 * policy (stream-engine.txt §5 "Retention": metadata first). The new log start must be the end of
 * an index entry; the entries wholly below it are dropped, and objects no entry references any more
 * are retired. The state machine checks the policy itself with its own clock, so a proposer with a
 * fast clock or a stale view cannot trim more than the policy allows:
 *
 * <ul>
 *   <li>{@link Reason#TIME}: the stream has a time retention and every dropped entry's max
 *       timestamp is older than the metastore clock minus it;
 *   <li>{@link Reason#SIZE}: the stream has a size retention, the newest entry is never dropped,
 *       and the entries kept hold at least the limit in bytes (Kafka's rule: a partition exceeds
 *       its limit by less than one entry and never drops below it by a trim).
 * </ul>
 *
 * A log start at or below the current one is an idempotent success that changes nothing.
 */
public record TrimPartition(
    Origin origin, long streamId, int partition, long newLogStartOffset, Reason reason)
    implements Command {

  /** Which retention rule justifies the trim; codes are stable wire values. */
  public enum Reason {
    TIME(1),
    SIZE(2);

    private final int code;

    Reason(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }
}
