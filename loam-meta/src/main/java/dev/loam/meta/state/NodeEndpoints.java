package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.SetNodeEndpoint;
import java.util.Map;
import java.util.TreeMap;

/**
 * The named endpoints of the node registry: the {@link SetNodeEndpoint} rule and the version 6
 * snapshot section (docs/formats/metastore-snapshot.md). The endpoints themselves live in each
 * node's {@link NodeInfo}, in {@link ClusterRules}' registry, which passes its map in; this class
 * holds only what is particular to them, so the registry's own rules stay in one place.
 */
final class NodeEndpoints {
  private NodeEndpoints() {}

  /**
   * Sets or removes one endpoint of the proposer, which {@link ClusterRules#checkNode} already
   * found registered, live and at its epoch. The same value again, or removing an absent endpoint,
   * changes nothing and answers the node as it is.
   */
  static Outcome set(TreeMap<String, NodeInfo> nodes, SetNodeEndpoint c) {
    NodeInfo n = nodes.get(c.origin().nodeId());
    String name = c.name();
    String address = c.address();
    String where = " node=" + n.id() + " epoch=" + n.epoch() + " endpoint=" + shortened(name);
    if (!SetNodeEndpoint.isValidName(name)) {
      return rejected(
          RejectReason.INVALID,
          "endpoint name must be 1.."
              + SetNodeEndpoint.MAX_NAME_LENGTH
              + " characters of [a-z0-9_-] starting with [a-z]"
              + where);
    }
    if (address == null) {
      return rejected(
          RejectReason.INVALID, "endpoint address must not be null (empty removes it)" + where);
    }
    if (address.length() > SetNodeEndpoint.MAX_ADDRESS_LENGTH) {
      return rejected(
          RejectReason.INVALID,
          "endpoint address must be at most "
              + SetNodeEndpoint.MAX_ADDRESS_LENGTH
              + " characters"
              + where
              + " length="
              + address.length());
    }
    TreeMap<String, String> next = new TreeMap<>(n.endpoints());
    if (address.isEmpty()) {
      next.remove(name);
    } else {
      next.put(name, address);
    }
    if (next.equals(n.endpoints())) {
      return new Outcome.NodeRegistered(n);
    }
    if (next.size() > SetNodeEndpoint.MAX_ENDPOINTS) {
      return rejected(
          RejectReason.INVALID,
          "a node advertises at most "
              + SetNodeEndpoint.MAX_ENDPOINTS
              + " endpoints"
              + where
              + " endpoints="
              + n.endpoints().size());
    }
    NodeInfo updated = n.withEndpoints(next);
    nodes.put(updated.id(), updated);
    return new Outcome.NodeRegistered(updated);
  }

  /** A proposed name for a message: an over-long one is cut, so a refusal stays small. */
  private static String shortened(String name) {
    int max = SetNodeEndpoint.MAX_NAME_LENGTH + 16;
    return name == null || name.length() <= max ? name : name.substring(0, max) + "...";
  }

  /** Whether some node has an endpoint: the snapshot needs version 6 to hold it. */
  static boolean any(Map<String, NodeInfo> nodes) {
    for (NodeInfo n : nodes.values()) {
      if (!n.endpoints().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The version 6 section: the nodes that have endpoints, by id, each with its endpoints by name.
   * Nodes without endpoints are not written, so each state has one encoding.
   */
  static void write(BinaryWriter w, Map<String, NodeInfo> nodes) {
    int withEndpoints = 0;
    for (NodeInfo n : nodes.values()) {
      withEndpoints += n.endpoints().isEmpty() ? 0 : 1;
    }
    w.i32(withEndpoints);
    for (NodeInfo n : nodes.values()) {
      if (n.endpoints().isEmpty()) {
        continue;
      }
      w.string(n.id()).i32(n.endpoints().size());
      for (Map.Entry<String, String> e : n.endpoints().entrySet()) {
        w.string(e.getKey()).string(e.getValue());
      }
    }
  }

  /**
   * Reads {@link #write}'s section into the restored registry {@code nodes}. Anything no writer
   * produces is corruption: an empty section in version 6 (written only when some node has
   * endpoints), an unregistered, unsorted or repeated node, a node listed without endpoints or with
   * more than {@link SetNodeEndpoint#MAX_ENDPOINTS}, an unsorted, repeated or invalid name, and an
   * empty or over-long address.
   */
  static void read(BinaryReader r, TreeMap<String, NodeInfo> nodes, int version) {
    int nNodes = r.count("endpoints.count", 4 + 4 + 4 + 4);
    if (version == 6 && nNodes < 1) {
      throw r.corrupt("endpoints.count", "a version 6 snapshot must hold an endpoint");
    }
    String prevNode = null;
    for (int i = 0; i < nNodes; i++) {
      String id = r.string("endpoints.nodeId");
      NodeInfo n = nodes.get(id);
      if (n == null || (prevNode != null && prevNode.compareTo(id) >= 0)) {
        throw r.corrupt("endpoints.nodeId", "unknown, unsorted or duplicate node=" + id);
      }
      int m = r.count("endpoints.node.count", 4 + 4);
      if (m < 1 || m > SetNodeEndpoint.MAX_ENDPOINTS) {
        throw r.corrupt(
            "endpoints.node.count",
            "a node listed must have 1.."
                + SetNodeEndpoint.MAX_ENDPOINTS
                + " endpoints node="
                + id
                + " count="
                + m);
      }
      TreeMap<String, String> endpoints = new TreeMap<>();
      String prevName = null;
      for (int j = 0; j < m; j++) {
        String name = r.string("endpoint.name");
        if (!SetNodeEndpoint.isValidName(name)
            || (prevName != null && prevName.compareTo(name) >= 0)) {
          throw r.corrupt(
              "endpoint.name",
              "invalid, unsorted or duplicate name node=" + id + " endpoint=" + shortened(name));
        }
        String address = r.string("endpoint.address");
        if (address.isEmpty() || address.length() > SetNodeEndpoint.MAX_ADDRESS_LENGTH) {
          throw r.corrupt(
              "endpoint.address",
              "empty or over-long address node="
                  + id
                  + " endpoint="
                  + name
                  + " length="
                  + address.length());
        }
        endpoints.put(name, address);
        prevName = name;
      }
      nodes.put(id, n.withEndpoints(endpoints));
      prevNode = id;
    }
  }
}
