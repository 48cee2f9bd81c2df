package dev.loam.sim;

/**
 * A stream as the run created it: the workload, the faults and the checks need its shape and its
 * retention.
 *
 * @param retentionMillis time retention, or -1 for none
 * @param retentionBytes size retention, or -1 for none
 * @param express whether it is of the express durability class
 */
public record SimStream(
    String name, int partitions, long retentionMillis, long retentionBytes, boolean express) {

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
        + "]";
  }
}
