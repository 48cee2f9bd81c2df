package dev.loam.journal.entry;

/**
 * What applying one {@link JournalEntry} answered (docs/design/quorum.md): a value, never an
 * exception, identical on every replica.
 */
public sealed interface JournalResult {
  /** The journal now hosts the partition; its first offset is {@code startOffset}. */
  record Hosted(long startOffset) implements JournalResult {}

  /** The batch was appended at offsets {@code [baseOffset, lastOffset]}. */
  record Appended(long baseOffset, long lastOffset) implements JournalResult {}

  /**
   * The batch repeats one of the producer's last batches, appended at {@code [baseOffset,
   * lastOffset]}; nothing was appended now.
   */
  record Duplicate(long baseOffset, long lastOffset) implements JournalResult {}

  /** The seal was recorded: offsets below {@code sealedOffset} are in segments now. */
  record Sealed(long sealedOffset) implements JournalResult {}

  /** The entry was refused and changed nothing. */
  record Rejected(Reason reason, String message) implements JournalResult {
    /** Requires a reason and a message. */
    public Rejected {
      java.util.Objects.requireNonNull(reason, "reason");
      java.util.Objects.requireNonNull(message, "message");
    }
  }

  /** Why an entry was refused; the codes are the reply format's. */
  enum Reason {
    /** The journal does not host the partition. */
    UNKNOWN_PARTITION(1),
    /** A HOST of a partition the journal already hosts. */
    ALREADY_HOSTED(2),
    /** The producer's sequence does not follow its last batch. */
    OUT_OF_ORDER_SEQUENCE(3),
    /** The producer epoch is older than the producer's current one. */
    PRODUCER_FENCED(4),
    /** The journal's unsealed bytes would exceed its bound; retriable once sealing frees room. */
    TAIL_FULL(5),
    /** A seal that does not start at the sealed offset or end at a batch boundary of the tail. */
    BAD_SEAL(6);

    private final int code;

    Reason(int code) {
      this.code = code;
    }

    /** The reason's byte in the reply format. */
    public int code() {
      return code;
    }

    /** The reason for {@code code}, or null. */
    static Reason of(int code) {
      for (Reason r : values()) {
        if (r.code == code) {
          return r;
        }
      }
      return null;
    }
  }
}
