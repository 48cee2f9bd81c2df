package dev.loam.client.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.client.ConsumerState;
import dev.loam.client.FetchResult;
import dev.loam.client.FetchedRecord;
import dev.loam.client.Header;
import dev.loam.client.NodeInfo;
import dev.loam.client.ProduceRecord;
import dev.loam.client.ProduceResult;
import dev.loam.client.ServerErrorException;
import dev.loam.client.StreamInfo;
import dev.loam.client.StreamOwner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The JSON shapes of docs/reference/http-api.md, both ways. Keys, values and header values always
 * travel in base64 so every byte sequence round-trips.
 */
public final class Wire {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Wire() {}

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  public static byte[] bytes(JsonNode n) {
    try {
      return MAPPER.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  /** The parsed body, or null if it is not JSON. */
  static JsonNode readOrNull(byte[] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    try {
      return MAPPER.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  /** The parsed body of a successful answer; a body that is not JSON is a server error. */
  public static JsonNode read(byte[] body, String node) {
    JsonNode n = readOrNull(body);
    if (n == null || !n.isObject()) {
      throw new ServerErrorException(
          "unreadable_answer",
          200,
          "the answer is not a JSON object node="
              + node
              + " body="
              + new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8),
          node);
    }
    return n;
  }

  /**
   * A node's advertised address as a base URL without a trailing slash: {@code host:port} becomes
   * {@code http://host:port}; empty stays empty.
   */
  public static String normaliseAddress(String address) {
    String a = address == null ? "" : address.trim();
    if (a.isEmpty()) {
      return "";
    }
    if (!a.contains("://")) {
      a = "http://" + a;
    }
    while (a.endsWith("/")) {
      a = a.substring(0, a.length() - 1);
    }
    return a;
  }

  /** A path segment percent-encoded (everything but RFC 3986 unreserved characters). */
  public static String segment(String s) {
    StringBuilder b = new StringBuilder();
    for (byte c : s.getBytes(StandardCharsets.UTF_8)) {
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        b.append((char) c);
      } else {
        b.append('%').append(String.format("%02X", c & 0xff));
      }
    }
    return b.toString();
  }

  // ------------------------------------------------------------------ requests

  /** The body of a produce, records in base64; with {@code partition >= 0} every record's. */
  public static ObjectNode produceBody(List<ProduceRecord> records, int partition) {
    ObjectNode o = object();
    o.put("encoding", "base64");
    ArrayNode a = o.putArray("records");
    Base64.Encoder enc = Base64.getEncoder();
    for (ProduceRecord r : records) {
      ObjectNode ro = a.addObject();
      ro.put("key", r.key() == null ? null : enc.encodeToString(r.key()));
      ro.put("value", r.value() == null ? null : enc.encodeToString(r.value()));
      if (!r.headers().isEmpty()) {
        ObjectNode h = ro.putObject("headers");
        for (Header x : r.headers()) {
          String v = x.value() == null ? null : enc.encodeToString(x.value());
          JsonNode prev = h.get(x.name());
          if (prev == null) {
            h.put(x.name(), v);
          } else if (prev.isArray()) {
            ((ArrayNode) prev).add(v);
          } else {
            ArrayNode arr = h.arrayNode();
            arr.add(prev);
            arr.add(v);
            h.set(x.name(), arr);
          }
        }
      }
      r.timestamp().ifPresent(t -> ro.put("timestamp", t));
      if (partition >= 0) {
        ro.put("partition", partition);
      } else {
        r.partition().ifPresent(p -> ro.put("partition", p));
      }
    }
    return o;
  }

  // ------------------------------------------------------------------ answers

  public static ProduceResult produceResult(JsonNode o) {
    List<ProduceResult.Position> positions = new ArrayList<>();
    for (JsonNode p : o.path("records")) {
      positions.add(
          new ProduceResult.Position(p.path("partition").asInt(), p.path("offset").asLong()));
    }
    return new ProduceResult(
        List.copyOf(positions),
        Long.parseLong(o.path("token").asText("0")),
        o.path("duplicate").asBoolean(false));
  }

  public static FetchResult fetchResult(JsonNode o) {
    Base64.Decoder dec = Base64.getDecoder();
    List<FetchedRecord> records = new ArrayList<>();
    for (JsonNode r : o.path("records")) {
      List<Header> headers = new ArrayList<>();
      Iterator<Map.Entry<String, JsonNode>> it = r.path("headers").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isArray()) {
          for (JsonNode v : e.getValue()) {
            headers.add(new Header(e.getKey(), decode(dec, v)));
          }
        } else {
          headers.add(new Header(e.getKey(), decode(dec, e.getValue())));
        }
      }
      records.add(
          new FetchedRecord(
              r.path("offset").asLong(),
              r.path("timestamp").asLong(),
              decode(dec, r.get("key")),
              decode(dec, r.get("value")),
              List.copyOf(headers)));
    }
    return new FetchResult(
        List.copyOf(records),
        o.path("next_offset").asLong(),
        o.path("high_watermark").asLong(),
        o.path("log_start_offset").asLong());
  }

  private static byte[] decode(Base64.Decoder dec, JsonNode v) {
    return v == null || v.isNull() ? null : dec.decode(v.asText());
  }

  public static StreamInfo streamInfo(JsonNode o) {
    List<StreamInfo.PartitionBounds> bounds = new ArrayList<>();
    for (JsonNode p : o.path("partition_bounds")) {
      bounds.add(
          new StreamInfo.PartitionBounds(
              p.path("partition").asInt(),
              p.path("log_start_offset").asLong(),
              p.path("high_watermark").asLong()));
    }
    Optional<StreamOwner> owner =
        o.hasNonNull("owner") ? Optional.of(owner(o.get("owner"))) : Optional.empty();
    return new StreamInfo(
        o.path("namespace").asText(),
        o.path("name").asText(),
        o.path("id").asLong(),
        o.path("partitions").asInt(),
        o.path("class").asText(),
        o.path("retention_ms").asLong(),
        o.path("retention_bytes").asLong(),
        o.path("cleanup_policy").asText(),
        List.copyOf(bounds),
        owner);
  }

  public static StreamOwner owner(JsonNode o) {
    return new StreamOwner(
        o.path("state").asText(""),
        o.path("node_id").asText(""),
        normaliseAddress(o.path("address").asText("")),
        o.path("stream_epoch").asLong(),
        o.path("transfer_target").asText(""));
  }

  public static NodeInfo node(JsonNode o) {
    return new NodeInfo(
        o.path("node_id").asText(),
        o.path("epoch").asLong(),
        normaliseAddress(o.path("address").asText("")),
        o.path("zone").asText(""),
        o.path("slots").asInt());
  }

  public static List<NodeInfo> nodes(JsonNode o) {
    List<NodeInfo> out = new ArrayList<>();
    for (JsonNode n : o.path("nodes")) {
      out.add(node(n));
    }
    return List.copyOf(out);
  }

  public static ConsumerState consumerState(JsonNode o) {
    return new ConsumerState(
        o.path("namespace").asText(),
        o.path("consumer").asText(),
        o.path("stream").asText(),
        o.path("partition").asInt(),
        o.path("generation").asLong(),
        o.hasNonNull("holder") ? o.get("holder").asText() : "",
        optLong(o, "lease_expires_at_ms"),
        optLong(o, "committed_offset"));
  }

  private static OptionalLong optLong(JsonNode o, String field) {
    return o.hasNonNull(field) ? OptionalLong.of(o.get(field).asLong()) : OptionalLong.empty();
  }
}
