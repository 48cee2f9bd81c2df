package dev.loam.http.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.ConsumerState;
import dev.loam.api.NodeDescription;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamOwner;

/**
 * The JSON shapes of the API's answers that more than one route returns
 * (docs/reference/http-api.md): a stream, its owner, a node and a named consumer's state. Member
 * order is part of the shape.
 */
public final class JsonViews {
  private JsonViews() {}

  /** A stream: its spec and each partition's bounds. */
  public static ObjectNode describe(StreamDescription d) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", d.namespace());
    o.put("name", d.name());
    o.put("id", d.id());
    o.put("partitions", d.spec().partitions());
    o.put("class", d.spec().durabilityClass().wireName());
    o.put("retention_ms", d.spec().retentionMillis());
    o.put("retention_bytes", d.spec().retentionBytes());
    o.put("cleanup_policy", d.spec().compacted() ? "compact" : "delete");
    o.put("compression", d.spec().compression().wireName());
    ArrayNode a = o.putArray("partition_bounds");
    for (StreamDescription.PartitionBounds p : d.partitions()) {
      ObjectNode po = a.addObject();
      po.put("partition", p.partition());
      po.put("log_start_offset", p.logStartOffset());
      po.put("high_watermark", p.highWatermark());
      if (!p.journal().isEmpty()) {
        po.put("journal", p.journal());
      }
      if (!p.movingToJournal().isEmpty()) {
        po.put("moving_to_journal", p.movingToJournal());
      }
    }
    return o;
  }

  /** A move of a quorum partition between journals, as begun. */
  public static ObjectNode journalMove(ObjectNode o, dev.loam.api.JournalMove m) {
    o.put("namespace", m.namespace());
    o.put("stream", m.stream());
    o.put("partition", m.partition());
    o.put("from_journal", m.fromJournal());
    o.put("to_journal", m.toJournal());
    ArrayNode replicas = o.putArray("to_replicas");
    m.toReplicas().forEach(replicas::add);
    o.put("state", "moving");
    return o;
  }

  /** A stream's owner. */
  public static ObjectNode owner(StreamOwner o) {
    ObjectNode j = Json.MAPPER.createObjectNode();
    j.put("state", o.state());
    j.put("node_id", o.ownerNodeId());
    j.put("address", o.ownerAddress());
    j.put("stream_epoch", o.streamEpoch());
    j.put("transfer_target", o.transferTarget());
    return j;
  }

  /**
   * Writes a node's members into {@code into}; its endpoints as an object from name to address, by
   * name, empty when it advertised none.
   */
  public static ObjectNode node(ObjectNode into, NodeDescription d) {
    into.put("node_id", d.nodeId());
    into.put("epoch", d.epoch());
    into.put("address", d.advertisedAddress());
    into.put("zone", d.zone());
    into.put("slots", d.slots());
    ObjectNode endpoints = into.putObject("endpoints");
    d.endpoints().forEach(endpoints::put);
    return into;
  }

  /** A named consumer's state on one partition. */
  public static ObjectNode consumer(ConsumerState st) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", st.namespace());
    o.put("consumer", st.consumer());
    o.put("stream", st.stream());
    o.put("partition", st.partition());
    o.put("generation", st.generation());
    o.put("holder", st.holder());
    o.put("lease_expires_at_ms", st.leaseExpiresAtMillis());
    if (st.committedOffset().isPresent()) {
      o.put("committed_offset", st.committedOffset().getAsLong());
    } else {
      o.putNull("committed_offset");
    }
    return o;
  }

  /** A partition no one has leased or committed yet: generation 0 and nulls. */
  public static ObjectNode noConsumer(String ns, String consumer, String stream, int p) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("namespace", ns);
    o.put("consumer", consumer);
    o.put("stream", stream);
    o.put("partition", p);
    o.put("generation", 0);
    o.putNull("holder");
    o.putNull("lease_expires_at_ms");
    o.putNull("committed_offset");
    return o;
  }
}
