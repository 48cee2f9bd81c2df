package dev.loam.sim;

/**
 * A stream as the run created it: the workload, the faults and the checks need its shape and its
 * retention.
 *
 * @param retentionMillis time retention, or -1 for none
 * @param retentionBytes size retention, or -1 for none
 * @param express whether it is of the express durability class
 * @param quorum whether it is of the quorum durability class (on the simulated Raft journal)
 */
public record SimStream(
    String name,
    int partitions,
    long retentionMillis,
    long retentionBytes,
    boolean express,
    boolean quorum) {

  /** A stream of the standard or the express class. */
  public SimStream(
      String name, int partitions, long retentionMillis, long retentionBytes, boolean express) {
    this(name, partitions, retentionMillis, retentionBytes, express, false);
  }

  /**
   * Spelled as it always was in the trace ("setup done streams=[Stream[...]]"): the trace hash of
   * every recorded seed covers this text.
   */
  @Override
  public String toString() {
    return "Stream[name="
        + name
        + ", partitions="
        + partitions
        + ", retentionMillis="
        + retentionMillis
        + ", retentionBytes="
        + retentionBytes
        + ", express="
        + express
        + (quorum ? ", quorum=true" : "")
        + "]";
  }
}
