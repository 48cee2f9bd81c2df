package dev.loam.meta.command;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A Kafka consumer group's record in the metastore (docs/design/consumer-groups.md): the stored
 * generation and the committed offsets, by (stream, partition). Membership is not here: it lives in
 * the coordinator's memory.
 *
 * @param coordinatorStreamId the group's coordinator stream, whose owner is the coordinator
 * @param generation the generation of the last completed rebalance; 0 before the first
 */
public record GroupInfo(
    String namespace,
    String group,
    long coordinatorStreamId,
    int generation,
    List<GroupOffset> offsets) {
  /** The reserved namespace holding every group's coordinator stream. */
  public static final String COORDINATOR_NAMESPACE = "loam-groups";

  /** The longest group id, in UTF-16 chars. */
  public static final int MAX_GROUP_LENGTH = 249;

  /** Committed partitions per group at most, and per command (STYLE.md §9). */
  public static final int MAX_OFFSETS = 10_000;

  /** Groups with a record per namespace at most (STYLE.md §9). */
  public static final int MAX_GROUPS_PER_NAMESPACE = 10_000;

  public GroupInfo {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(group, "group");
    offsets = List.copyOf(offsets);
  }

  /**
   * The name of the coordinator stream of {@code group} in {@code namespace}, in {@link
   * #COORDINATOR_NAMESPACE}: {@code g-} and the first 16 bytes of SHA-256(namespace ‖ 0x00 ‖ group)
   * in lower-case hex. Any group id maps to a valid stream name, the same on every node.
   */
  public static String coordinatorStreamName(String namespace, String group) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(namespace.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(group.getBytes(StandardCharsets.UTF_8));
      byte[] h = sha.digest();
      return "g-" + HexFormat.of().formatHex(h, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
