package dev.loam.cloudevents;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The CloudEvents JSON format, structured ({@code application/cloudevents+json}) and batched
 * ({@code application/cloudevents-batch+json}), written by hand so that attribute names, values and
 * order and JSON data round-trip as sent: a number keeps its literal, {@code data} of a JSON
 * content type keeps its text, whitespace included.
 *
 * <p>Parsing applies the JSON-level rules (a member once, context attributes as strings, scalar
 * extensions, not both {@code data} and {@code data_base64}, base64 that decodes) and then {@link
 * EventValidator#validate}. Refusals are {@link InvalidEventException}s that name {@code events[i]}
 * and the attribute.
 */
public final class JsonFormat {
  /** Most events one request may carry. */
  public static final int MAX_EVENTS = 1000;

  static final String DATA = "data";
  static final String DATA_BASE64 = "data_base64";

  private static final Pattern INT32_LITERAL = Pattern.compile("-?(0|[1-9][0-9]{0,9})");

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNestingDepth(200).maxNumberLength(1000).build())
          .build();

  private JsonFormat() {}

  /** One event in the structured JSON format. */
  public static CloudEvent parseEvent(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      JsonToken t = next(p, "event");
      if (t != JsonToken.START_OBJECT) {
        throw new InvalidEventException(null, "events[0]: the body is not one JSON object");
      }
      CloudEvent e = readEvent(p, body, "events[0]");
      end(p);
      return e;
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  /** A JSON array of events in the batched JSON format, at most {@link #MAX_EVENTS}. */
  public static List<CloudEvent> parseBatch(byte[] body) {
    try (JsonParser p = FACTORY.createParser(body)) {
      JsonToken t = next(p, "batch");
      if (t != JsonToken.START_ARRAY) {
        throw new InvalidEventException(null, "events: a batch is one JSON array of events");
      }
      List<CloudEvent> out = new ArrayList<>();
      while ((t = next(p, "batch")) != JsonToken.END_ARRAY) {
        String where = "events[" + out.size() + "]";
        if (out.size() == MAX_EVENTS) {
          throw new InvalidEventException(
              null, "events: more than " + MAX_EVENTS + " events in one request");
        }
        if (t != JsonToken.START_OBJECT) {
          throw new InvalidEventException(null, where + ": not a JSON object");
        }
        out.add(readEvent(p, body, where));
      }
      end(p);
      return out;
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  /** True when {@code bytes} are exactly one JSON value (surrounding whitespace allowed). */
  public static boolean isJsonValue(byte[] bytes) {
    if (!ContentTypes.isUtf8(bytes)) {
      return false;
    }
    try (JsonParser p = FACTORY.createParser(bytes)) {
      if (p.nextToken() == null) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static CloudEvent readEvent(JsonParser p, byte[] body, String where) throws IOException {
    List<Attribute> attrs = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    byte[] rawData = null;
    String stringData = null;
    byte[] base64Data = null;
    JsonToken t;
    while ((t = next(p, where)) != JsonToken.END_OBJECT) {
      String name = p.currentName();
      if (!EventValidator.isValidUnicode(name)) {
        throw new InvalidEventException(
            null, where + ": a member name holds an unpaired surrogate (not valid Unicode)");
      }
      if (!seen.add(name)) {
        throw new InvalidEventException(name, where + "." + name + ": occurs twice");
      }
      t = next(p, where);
      if (name.equals(DATA)) {
        long start = p.currentTokenLocation().getByteOffset();
        if (t == JsonToken.VALUE_STRING) {
          stringData = p.getText();
        } else {
          p.skipChildren();
        }
        long end = p.currentLocation().getByteOffset();
        rawData = java.util.Arrays.copyOfRange(body, (int) start, (int) end);
        continue;
      }
      if (name.equals(DATA_BASE64)) {
        if (t == JsonToken.VALUE_NULL) {
          continue;
        }
        if (t != JsonToken.VALUE_STRING) {
          throw new InvalidEventException(
              DATA_BASE64, where + ".data_base64: must be a JSON string of base64");
        }
        try {
          base64Data = Base64.getDecoder().decode(p.getText());
        } catch (IllegalArgumentException e) {
          throw new InvalidEventException(
              DATA_BASE64, where + ".data_base64: not base64 (RFC 4648, padded)");
        }
        continue;
      }
      Attribute a = attribute(p, t, name, where);
      if (a != null) {
        attrs.add(a);
      }
    }
    if (rawData != null && base64Data != null) {
      throw new InvalidEventException(
          DATA_BASE64, where + ".data_base64: an event has data or data_base64, not both");
    }
    String ct = null;
    for (Attribute a : attrs) {
      if (a.name().equals(CloudEvent.DATACONTENTTYPE)) {
        ct = a.text();
      }
    }
    byte[] data = base64Data;
    if (rawData != null) {
      if (stringData != null && !ContentTypes.isJson(ct)) {
        if (!EventValidator.isValidUnicode(stringData)) {
          throw new InvalidEventException(
              DATA, where + ".data: holds an unpaired surrogate (not valid Unicode)");
        }
        data = stringData.getBytes(StandardCharsets.UTF_8);
      } else {
        data = rawData;
      }
    }
    CloudEvent e = new CloudEvent(attrs, data);
    try {
      EventValidator.validate(e);
    } catch (InvalidEventException x) {
      throw x.at(where);
    }
    return e;
  }

  private static Attribute attribute(JsonParser p, JsonToken t, String name, String where)
      throws IOException {
    boolean context = EventValidator.CONTEXT_ATTRIBUTES.contains(name);
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t == JsonToken.VALUE_STRING) {
      return new Attribute(name, AttributeType.STRING, p.getText());
    }
    if (context) {
      throw new InvalidEventException(
          name, where + "." + name + ": must be a JSON string, not " + describe(t));
    }
    return switch (t) {
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        String text = p.getText();
        yield new Attribute(
            name, isInt32(text) ? AttributeType.INTEGER : AttributeType.NUMBER, text);
      }
      case VALUE_TRUE -> new Attribute(name, AttributeType.BOOLEAN, "true");
      case VALUE_FALSE -> new Attribute(name, AttributeType.BOOLEAN, "false");
      default ->
          throw new InvalidEventException(
              name,
              where
                  + "."
                  + name
                  + ": an extension is a string, number or boolean, not "
                  + describe(t));
    };
  }

  /** True when {@code text} is a JSON integer literal within 32 bits. */
  static boolean isInt32(String text) {
    if (!INT32_LITERAL.matcher(text).matches()) {
      return false;
    }
    long v = Long.parseLong(text);
    return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
  }

  private static String describe(JsonToken t) {
    return switch (t) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      default -> t.asString() == null ? t.name() : t.asString();
    };
  }

  private static JsonToken next(JsonParser p, String where) throws IOException {
    JsonToken t = p.nextToken();
    if (t == null) {
      throw new InvalidEventException(null, where + ": malformed JSON: the body ends early");
    }
    return t;
  }

  private static void end(JsonParser p) throws IOException {
    if (p.nextToken() != null) {
      throw new InvalidEventException(null, "events: malformed JSON: data after the body");
    }
  }

  private static InvalidEventException malformed(IOException e) {
    String where = "";
    if (e instanceof JsonProcessingException j && j.getLocation() != null) {
      where =
          " at line " + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr();
    }
    return new InvalidEventException(null, "events: malformed JSON" + where);
  }

  /** {@code event} in the structured JSON format. */
  public static byte[] write(CloudEvent event) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      writeEvent(g, event);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Events in the batched JSON format. An element of {@code raw} that is not null is written in
   * place of the event at its index, unchanged (a record that held a structured-mode event).
   */
  public static byte[] writeBatch(List<CloudEvent> events, List<byte[]> raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartArray();
      for (int i = 0; i < events.size(); i++) {
        byte[] r = raw == null ? null : raw.get(i);
        if (r != null) {
          g.writeRawValue(new String(r, StandardCharsets.UTF_8));
        } else {
          writeEvent(g, events.get(i));
        }
      }
      g.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Events in the batched JSON format. */
  public static byte[] writeBatch(List<CloudEvent> events) {
    return writeBatch(events, null);
  }

  private static void writeEvent(JsonGenerator g, CloudEvent e) throws IOException {
    g.writeStartObject();
    String ct = null;
    for (Attribute a : e.attributes()) {
      g.writeFieldName(a.name());
      switch (a.type()) {
        case INTEGER, NUMBER, BOOLEAN -> g.writeRawValue(a.text());
        default -> g.writeString(a.text());
      }
      if (a.name().equals(CloudEvent.DATACONTENTTYPE)) {
        ct = a.text();
      }
    }
    if (e.hasData()) {
      byte[] data = e.data();
      if (ContentTypes.isJson(ct) && isJsonValue(data)) {
        g.writeFieldName(DATA);
        g.writeRawValue(new String(data, StandardCharsets.UTF_8));
      } else if (ContentTypes.isText(ct) && ContentTypes.isUtf8(data)) {
        g.writeStringField(DATA, new String(data, StandardCharsets.UTF_8));
      } else {
        g.writeStringField(DATA_BASE64, Base64.getEncoder().encodeToString(data));
      }
    }
    g.writeEndObject();
  }
}
