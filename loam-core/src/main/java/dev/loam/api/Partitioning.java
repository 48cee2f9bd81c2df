package dev.loam.api;

/**
 * Kafka's default partitioner for keyed records: {@code toPositive(murmur2(key)) % partitions}, so
 * Loam and Kafka clients agree on where a key lives (the Kafka gateway depends on it).
 */
public final class Partitioning {
  private Partitioning() {}

  /** The partition of a non-null key. */
  public static int partitionForKey(byte[] key, int partitions) {
    return (murmur2(key) & 0x7fffffff) % partitions;
  }

  /** Kafka's murmur2 ({@code org.apache.kafka.common.utils.Utils#murmur2}), bit for bit. */
  public static int murmur2(byte[] data) {
    int length = data.length;
    final int m = 0x5bd1e995;
    final int r = 24;
    int h = 0x9747b28c ^ length;
    int length4 = length / 4;
    for (int i = 0; i < length4; i++) {
      int i4 = i * 4;
      int k =
          (data[i4] & 0xff)
              + ((data[i4 + 1] & 0xff) << 8)
              + ((data[i4 + 2] & 0xff) << 16)
              + ((data[i4 + 3] & 0xff) << 24);
      k *= m;
      k ^= k >>> r;
      k *= m;
      h *= m;
      h ^= k;
    }
    int tail = length & ~3;
    switch (length % 4) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
      // fall through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
      // fall through
      case 1:
        h ^= data[tail] & 0xff;
        h *= m;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= m;
    h ^= h >>> 15;
    return h;
  }
}
