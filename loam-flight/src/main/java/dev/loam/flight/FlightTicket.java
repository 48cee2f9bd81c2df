package dev.loam.flight;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A DoGet ticket (docs/reference/arrow.md "Arrow Flight"): one partition of an arrow stream, the
 * offsets {@code [from, to)} to serve, and the columns to project (empty: every column). Encoded as
 * a small JSON object, {@code {"namespace":..,"stream":..,"partition":..,"from":..,"to":..,
 * "columns":[..]}}, so that a client may also write one by hand.
 */
public record FlightTicket(
    String namespace, String stream, int partition, long from, long to, List<String> columns) {
  /** The longest ticket accepted, in bytes. */
  public static final int MAX_BYTES = 64 * 1024;

  private static final JsonFactory JSON =
      JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  /**
   * @throws LoamException INVALID for a missing name, a negative partition or offset, {@code to <
   *     from}, or a repeated column
   */
  public FlightTicket {
    Objects.requireNonNull(columns, "columns");
    columns = List.copyOf(columns);
    if (namespace == null || namespace.isEmpty() || stream == null || stream.isEmpty()) {
      throw invalid("namespace and stream are required");
    }
    if (partition < 0) {
      throw invalid("partition must be >= 0 partition=" + partition);
    }
    if (from < 0 || to < from) {
      throw invalid("offsets must satisfy 0 <= from <= to from=" + from + " to=" + to);
    }
    if (columns.stream().distinct().count() != columns.size()) {
      throw invalid("a column is named twice columns=" + columns);
    }
  }

  private static LoamException invalid(String why) {
    return new LoamException(Kind.INVALID, "flight ticket invalid: " + why);
  }

  /** The ticket's bytes. */
  public byte[] encode() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("namespace", namespace);
      g.writeStringField("stream", stream);
      g.writeNumberField("partition", partition);
      g.writeNumberField("from", from);
      g.writeNumberField("to", to);
      g.writeArrayFieldStart("columns");
      for (String c : columns) {
        g.writeString(c);
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Parses a ticket.
   *
   * @throws LoamException INVALID naming what is wrong: not JSON, an unknown or missing member, a
   *     member of the wrong type, or a value out of range
   */
  public static FlightTicket parse(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      throw invalid("empty");
    }
    if (bytes.length > MAX_BYTES) {
      throw invalid("longer than " + MAX_BYTES + " bytes length=" + bytes.length);
    }
    String ns = null;
    String stream = null;
    Long partition = null;
    Long from = null;
    Long to = null;
    List<String> columns = List.of();
    try (JsonParser p = JSON.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw invalid("not a JSON object");
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        switch (name) {
          case "namespace" -> ns = string(p, v, name);
          case "stream" -> stream = string(p, v, name);
          case "partition" -> partition = number(p, v, name);
          case "from" -> from = number(p, v, name);
          case "to" -> to = number(p, v, name);
          case "columns" -> {
            if (v != JsonToken.START_ARRAY) {
              throw invalid("columns must be an array of strings");
            }
            List<String> cs = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
              cs.add(string(p, p.currentToken(), "columns[" + cs.size() + "]"));
            }
            columns = cs;
          }
          default -> throw invalid("unknown member " + name);
        }
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        throw invalid("not a single JSON object");
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw invalid("not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      // Reading from a byte array fails only on the bytes themselves (an encoding Jackson
      // detects and cannot decode).
      throw invalid("not valid JSON: " + e.getMessage());
    }
    if (partition == null || from == null || to == null) {
      throw invalid("partition, from and to are required");
    }
    if (partition > Integer.MAX_VALUE) {
      throw invalid("partition out of range partition=" + partition);
    }
    return new FlightTicket(ns, stream, (int) (long) partition, from, to, columns);
  }

  private static String string(JsonParser p, JsonToken v, String name) throws IOException {
    if (v != JsonToken.VALUE_STRING) {
      throw invalid(name + " must be a string");
    }
    return p.getText();
  }

  private static long number(JsonParser p, JsonToken v, String name) throws IOException {
    if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw invalid(name + " must be an integer in the i64 range");
    }
    return p.getLongValue();
  }
}
