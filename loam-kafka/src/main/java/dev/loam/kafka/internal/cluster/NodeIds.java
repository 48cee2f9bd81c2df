package dev.loam.kafka.internal.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Kafka broker ids for Loam nodes. Kafka identifies brokers by a non-negative int32, Loam nodes by
 * a string; a node's Kafka id is the CRC32C of its UTF-8 node id modulo 2^20 (so ids stay small and
 * the same node gets the same id from every gateway and across restarts). Two live nodes whose ids
 * collide are resolved deterministically: the nodes are taken in node-id order and a node whose id
 * is already taken gets the next free one (+1, wrapping within 2^20). Every gateway sees the same
 * live set from the node registry, so all of them answer the same ids.
 */
public final class NodeIds {
  /** Kafka ids lie in {@code [0, 2^20)}. */
  public static final int RANGE = 1 << 20;

  private NodeIds() {}

  /** The natural (collision-free) Kafka id of one node id. */
  public static int natural(String nodeId) {
    CRC32C crc = new CRC32C();
    crc.update(nodeId.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % RANGE);
  }

  /** The Kafka id of every node in {@code nodeIds}, keyed in node-id order. */
  public static Map<String, Integer> assign(Collection<String> nodeIds) {
    List<String> sorted = new ArrayList<>(new HashSet<>(nodeIds));
    sorted.sort(null);
    Map<String, Integer> out = new LinkedHashMap<>();
    Set<Integer> taken = new HashSet<>();
    for (String id : sorted) {
      int k = natural(id);
      while (!taken.add(k)) {
        k = (k + 1) % RANGE;
      }
      out.put(id, k);
    }
    return out;
  }
}
