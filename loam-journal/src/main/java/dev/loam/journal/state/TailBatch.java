package dev.loam.journal.state;

/**
 * One accepted batch of a partition's unsealed tail: its assigned offsets and its bytes, whose
 * baseOffset field holds {@code baseOffset}. The array is never changed after it is stored.
 */
record TailBatch(long baseOffset, int recordCount, byte[] bytes) {
  long endOffset() {
    return baseOffset + recordCount;
  }
}
