package dev.loam.kafka.internal.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.kafka.common.Uuid;

/**
 * The Kafka topic id of a stream: stable for the stream's life, different for a stream of the same
 * name created again (Kafka's rule, so clients notice a recreated topic), and the same on every
 * node without any stored state. It is the first 128 bits of SHA-256 over {@code "loam-topic-id\0"
 * + clusterId + "\0" + streamId} (stream id in decimal), with the top bit cleared: Kafka's string
 * form of a UUID is URL-safe base64, and Kafka never hands out an id whose text starts with {@code
 * -}; the cleared bit also keeps the id away from Kafka's reserved ids (the zero id and the
 * metadata topic's id 1 are vanishingly unlikely and refused below).
 */
public final class TopicIds {
  private TopicIds() {}

  /** The topic id of stream {@code streamId} in cluster {@code clusterId}. */
  public static Uuid of(String clusterId, long streamId) {
    byte[] digest;
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(
          ("loam-topic-id\0" + clusterId + "\0" + streamId).getBytes(StandardCharsets.UTF_8));
      digest = sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
    ByteBuffer b = ByteBuffer.wrap(digest);
    long msb = b.getLong() & Long.MAX_VALUE;
    long lsb = b.getLong();
    if (msb == 0 && (lsb == 0 || lsb == 1)) {
      lsb = 2;
    }
    return new Uuid(msb, lsb);
  }
}
