package dev.loam.cloudevents;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * An event as a record, laid out as the CloudEvents Kafka binding lays out a binary-mode message
 * ({@code ce_<name>} headers, {@code content-type}, the data as the value, {@code partitionkey} as
 * the key), plus {@code loam_ce_types} for typed extensions; and a record read back as an event by
 * the three rules of docs/reference/cloudevents.md "Consume".
 */
public final class RecordLayout {
  /** The header prefix of attributes. */
  public static final String PREFIX = "ce_";

  /** The header that holds the record's (the event's data's) content type. */
  public static final String CONTENT_TYPE = "content-type";

  /** The header that lists the types of typed extensions. */
  public static final String TYPES = "loam_ce_types";

  /** The type of a synthesized envelope. */
  public static final String RECORD_TYPE = "dev.loam.stream.record";

  private static final Pattern JSON_NUMBER =
      Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private RecordLayout() {}

  /** Where a record was read: to synthesize an envelope for a record that holds no event. */
  public record Origin(long streamId, String namespace, String stream, int partition) {}

  /**
   * A record read back: the event, and for a record that held a structured-mode JSON event (rule 2)
   * the value as it was, to pass through unchanged in JSON output (null otherwise).
   */
  public record ReadEvent(CloudEvent event, byte[] rawJson) {}

  /** The record that stores {@code event}, sent to {@code partition} if present. */
  public static AppendRecord toRecord(CloudEvent event, OptionalInt partition) {
    List<Header> headers = new ArrayList<>(event.attributes().size() + 1);
    StringBuilder types = new StringBuilder();
    for (Attribute a : event.attributes()) {
      byte[] v = a.text().getBytes(StandardCharsets.UTF_8);
      if (a.name().equals(CloudEvent.DATACONTENTTYPE)) {
        headers.add(new Header(CONTENT_TYPE, v));
      } else {
        headers.add(new Header(PREFIX + a.name(), v));
      }
      if (a.type() != AttributeType.STRING
          && !EventValidator.CONTEXT_ATTRIBUTES.contains(a.name())) {
        if (types.length() > 0) {
          types.append(',');
        }
        types.append(a.name()).append('=').append(a.type().wireName());
      }
    }
    if (types.length() > 0) {
      headers.add(new Header(TYPES, types.toString().getBytes(StandardCharsets.UTF_8)));
    }
    String pk = event.text(CloudEvent.PARTITIONKEY);
    byte[] key = pk == null ? null : pk.getBytes(StandardCharsets.UTF_8);
    OptionalLong ts = OptionalLong.empty();
    String time = event.text(CloudEvent.TIME);
    if (time != null) {
      try {
        long ms = Rfc3339.parse(time).toEpochMilli();
        if (ms >= 0) {
          ts = OptionalLong.of(ms);
        }
      } catch (DateTimeException | ArithmeticException e) {
        // validated events always parse; an instant before 1970 keeps the arrival time
      }
    }
    return new AppendRecord(key, event.data(), headers, ts, partition);
  }

  /** {@code record} read back as an event, by the first rule that applies. */
  public static ReadEvent fromRecord(FetchedRecord record, Origin origin) {
    CloudEvent stored = fromHeaders(record.headers(), record.value());
    if (stored != null) {
      return new ReadEvent(stored, null);
    }
    boolean anyCe = false;
    String contentType = null;
    for (Header h : record.headers()) {
      if (h.key().startsWith(PREFIX)) {
        anyCe = true;
      } else if (h.key().equals(CONTENT_TYPE) && h.value() != null && contentType == null) {
        contentType = ContentTypes.utf8OrNull(h.value());
      }
    }
    if (!anyCe
        && contentType != null
        && ContentTypes.mediaType(contentType).equals(ContentTypes.STRUCTURED_JSON)
        && record.value() != null) {
      try {
        CloudEvent e = JsonFormat.parseEvent(record.value());
        return new ReadEvent(e, record.value());
      } catch (InvalidEventException e) {
        // not a valid event: synthesized below
      }
    }
    return new ReadEvent(synthesize(record, origin, contentType), null);
  }

  /**
   * The event stored in {@code headers} and {@code value} (rule 1), or null when the {@code ce_}
   * headers are absent, partial or invalid.
   */
  static CloudEvent fromHeaders(List<Header> headers, byte[] value) {
    List<Attribute> attrs = new ArrayList<>();
    Map<String, AttributeType> types = new HashMap<>();
    boolean anyCe = false;
    for (Header h : headers) {
      String name;
      if (h.key().startsWith(PREFIX)) {
        name = h.key().substring(PREFIX.length());
        anyCe = true;
      } else if (h.key().equals(CONTENT_TYPE)) {
        name = CloudEvent.DATACONTENTTYPE;
      } else {
        if (h.key().equals(TYPES) && h.value() != null) {
          String t = ContentTypes.utf8OrNull(h.value());
          if (t != null) {
            parseTypes(t, types);
          }
        }
        continue;
      }
      String text = h.value() == null ? null : ContentTypes.utf8OrNull(h.value());
      if (text == null) {
        return null;
      }
      for (Attribute a : attrs) {
        if (a.name().equals(name)) {
          return null;
        }
      }
      attrs.add(Attribute.string(name, text));
    }
    if (!anyCe) {
      return null;
    }
    for (int i = 0; i < attrs.size(); i++) {
      Attribute a = attrs.get(i);
      AttributeType t = types.get(a.name());
      if (t != null
          && !EventValidator.CONTEXT_ATTRIBUTES.contains(a.name())
          && isValidText(t, a.text())) {
        attrs.set(i, new Attribute(a.name(), t, a.text()));
      }
    }
    CloudEvent e;
    try {
      e = new CloudEvent(attrs, value);
      EventValidator.validate(e);
    } catch (InvalidEventException | IllegalArgumentException x) {
      return null;
    }
    return e;
  }

  private static void parseTypes(String header, Map<String, AttributeType> into) {
    for (String entry : header.split(",", -1)) {
      int eq = entry.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      String name = entry.substring(0, eq);
      AttributeType.ofWireName(entry.substring(eq + 1))
          .filter(t -> t != AttributeType.STRING)
          .ifPresent(t -> into.putIfAbsent(name, t));
    }
  }

  /** True when {@code text} is a value of {@code type} as the codec writes it. */
  static boolean isValidText(AttributeType type, String text) {
    return switch (type) {
      case STRING, URI, URI_REF -> true;
      case INTEGER -> JsonFormat.isInt32(text);
      case NUMBER -> JSON_NUMBER.matcher(text).matches();
      case BOOLEAN -> text.equals("true") || text.equals("false");
      case TIMESTAMP -> Rfc3339.isValid(text);
      case BINARY -> {
        try {
          java.util.Base64.getDecoder().decode(text);
          yield true;
        } catch (IllegalArgumentException e) {
          yield false;
        }
      }
    };
  }

  private static CloudEvent synthesize(FetchedRecord r, Origin origin, String contentType) {
    List<Attribute> attrs = new ArrayList<>();
    attrs.add(Attribute.string(CloudEvent.SPECVERSION, "1.0"));
    attrs.add(Attribute.string(CloudEvent.ID, origin.streamId() + "-" + r.offset()));
    attrs.add(
        Attribute.string(
            CloudEvent.SOURCE,
            "/namespaces/"
                + origin.namespace()
                + "/streams/"
                + origin.stream()
                + "/partitions/"
                + origin.partition()));
    attrs.add(Attribute.string(CloudEvent.TYPE, RECORD_TYPE));
    attrs.add(Attribute.string(CloudEvent.TIME, Rfc3339.millis(Math.max(0, r.timestamp()))));
    if (r.key() != null) {
      String k = ContentTypes.utf8OrNull(r.key());
      if (k != null) {
        attrs.add(Attribute.string(CloudEvent.PARTITIONKEY, k));
      }
    }
    byte[] value = r.value();
    String ct = contentType;
    if (ct == null && value != null) {
      ct = JsonFormat.isJsonValue(value) ? "application/json" : "application/octet-stream";
    }
    if (ct != null) {
      attrs.add(Attribute.string(CloudEvent.DATACONTENTTYPE, ct));
    }
    return new CloudEvent(attrs, value);
  }
}
