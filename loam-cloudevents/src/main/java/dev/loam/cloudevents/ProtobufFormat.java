package dev.loam.cloudevents;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The CloudEvents protobuf format ({@code application/cloudevents+protobuf}, the {@code
 * io.cloudevents.v1.CloudEvent} and {@code CloudEventBatch} messages of the spec's {@code
 * cloudevents.proto}), read and written by hand on protobuf-java's wire streams so that the
 * attribute map keeps its wire order.
 *
 * <p>Reading: {@code spec_version}, {@code id}, {@code source} and {@code type} come first, then
 * the map in wire order; typed extensions keep their type (docs/reference/cloudevents.md "How an
 * event is stored"). Writing: time and timestamp extensions as {@code ce_timestamp}, so their text
 * becomes canonical RFC 3339 UTC; {@code number} extensions as {@code ce_string}; data of a JSON or
 * text content type that is UTF-8 as {@code text_data}, other data as {@code binary_data}.
 */
public final class ProtobufFormat {
  // CloudEvent
  private static final int ID = 1;
  private static final int SOURCE = 2;
  private static final int SPEC_VERSION = 3;
  private static final int TYPE = 4;
  private static final int ATTRIBUTES = 5;
  private static final int BINARY_DATA = 6;
  private static final int TEXT_DATA = 7;
  private static final int PROTO_DATA = 8;
  // CloudEventAttributeValue
  private static final int CE_BOOLEAN = 1;
  private static final int CE_INTEGER = 2;
  private static final int CE_STRING = 3;
  private static final int CE_BYTES = 4;
  private static final int CE_URI = 5;
  private static final int CE_URI_REF = 6;
  private static final int CE_TIMESTAMP = 7;
  // Timestamp
  private static final long MIN_SECONDS = -62135596800L; // 0001-01-01T00:00:00Z
  private static final long MAX_SECONDS = 253402300799L; // 9999-12-31T23:59:59Z

  private ProtobufFormat() {}

  private static int tag(int field, int wireType) {
    return (field << 3) | wireType;
  }

  /** One serialized {@code CloudEvent}. */
  public static CloudEvent parseEvent(byte[] body) {
    try {
      return readEvent(CodedInputStream.newInstance(body), "events[0]");
    } catch (InvalidEventException e) {
      throw e;
    } catch (IOException e) {
      throw malformed("events[0]", e);
    }
  }

  /** One serialized {@code CloudEventBatch}, at most {@link JsonFormat#MAX_EVENTS} events. */
  public static List<CloudEvent> parseBatch(byte[] body) {
    List<CloudEvent> out = new ArrayList<>();
    CodedInputStream in = CodedInputStream.newInstance(body);
    try {
      int tag;
      while ((tag = in.readTag()) != 0) {
        if (tag != tag(1, WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
          skip(in, tag, "events");
          continue;
        }
        String where = "events[" + out.size() + "]";
        if (out.size() == JsonFormat.MAX_EVENTS) {
          throw new InvalidEventException(
              null, "events: more than " + JsonFormat.MAX_EVENTS + " events in one request");
        }
        byte[] one = in.readByteArray();
        try {
          out.add(readEvent(CodedInputStream.newInstance(one), where));
        } catch (InvalidEventException e) {
          throw e;
        } catch (IOException e) {
          throw malformed(where, e);
        }
      }
    } catch (InvalidEventException e) {
      throw e;
    } catch (IOException e) {
      throw malformed("events", e);
    }
    return out;
  }

  private static CloudEvent readEvent(CodedInputStream in, String where) throws IOException {
    String id = "";
    String source = "";
    String spec = "";
    String type = "";
    List<Attribute> map = new ArrayList<>();
    byte[] data = null;
    int tag;
    while ((tag = in.readTag()) != 0) {
      int field = WireFormat.getTagFieldNumber(tag);
      boolean delimited = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED;
      if (!delimited || field < ID || field > PROTO_DATA) {
        skip(in, tag, where);
        continue;
      }
      switch (field) {
        case ID -> id = in.readStringRequireUtf8();
        case SOURCE -> source = in.readStringRequireUtf8();
        case SPEC_VERSION -> spec = in.readStringRequireUtf8();
        case TYPE -> type = in.readStringRequireUtf8();
        case ATTRIBUTES -> {
          Attribute a = readEntry(CodedInputStream.newInstance(in.readByteArray()), where);
          for (Attribute b : map) {
            if (b.name().equals(a.name())) {
              throw new InvalidEventException(a.name(), where + "." + a.name() + ": occurs twice");
            }
          }
          map.add(a);
        }
        case BINARY_DATA -> data = in.readByteArray();
        case TEXT_DATA -> data = in.readStringRequireUtf8().getBytes(StandardCharsets.UTF_8);
        default ->
            throw new InvalidEventException(
                "proto_data",
                where
                    + ".proto_data: not supported; send the bytes as binary_data with their"
                    + " datacontenttype");
      }
    }
    List<Attribute> attrs = new ArrayList<>();
    addFixed(attrs, CloudEvent.SPECVERSION, spec);
    addFixed(attrs, CloudEvent.ID, id);
    addFixed(attrs, CloudEvent.SOURCE, source);
    addFixed(attrs, CloudEvent.TYPE, type);
    for (Attribute a : map) {
      for (Attribute b : attrs) {
        if (b.name().equals(a.name())) {
          throw new InvalidEventException(a.name(), where + "." + a.name() + ": occurs twice");
        }
      }
      attrs.add(a);
    }
    CloudEvent e = new CloudEvent(attrs, data);
    try {
      EventValidator.validate(e);
    } catch (InvalidEventException x) {
      throw x.at(where);
    }
    return e;
  }

  private static void addFixed(List<Attribute> attrs, String name, String value) {
    if (!value.isEmpty()) {
      attrs.add(Attribute.string(name, value));
    }
  }

  private static Attribute readEntry(CodedInputStream in, String where) throws IOException {
    String key = "";
    Attribute value = null;
    byte[] valueBytes = null;
    int tag;
    while ((tag = in.readTag()) != 0) {
      if (tag == tag(1, WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
        key = in.readStringRequireUtf8();
      } else if (tag == tag(2, WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
        valueBytes = in.readByteArray();
      } else {
        skip(in, tag, where);
      }
    }
    if (valueBytes != null) {
      value = readValue(CodedInputStream.newInstance(valueBytes), key, where);
    }
    if (value == null) {
      throw new InvalidEventException(
          key, where + "." + key + ": an attribute value sets none of its types");
    }
    return value;
  }

  private static Attribute readValue(CodedInputStream in, String name, String where)
      throws IOException {
    Attribute a = null;
    int tag;
    while ((tag = in.readTag()) != 0) {
      int field = WireFormat.getTagFieldNumber(tag);
      int wire = WireFormat.getTagWireType(tag);
      if (field == CE_BOOLEAN && wire == WireFormat.WIRETYPE_VARINT) {
        a = new Attribute(name, AttributeType.BOOLEAN, in.readBool() ? "true" : "false");
      } else if (field == CE_INTEGER && wire == WireFormat.WIRETYPE_VARINT) {
        a = new Attribute(name, AttributeType.INTEGER, Integer.toString(in.readInt32()));
      } else if (wire != WireFormat.WIRETYPE_LENGTH_DELIMITED || field < CE_STRING || field > 7) {
        skip(in, tag, where);
      } else {
        a =
            switch (field) {
              case CE_STRING ->
                  new Attribute(name, AttributeType.STRING, in.readStringRequireUtf8());
              case CE_BYTES ->
                  new Attribute(
                      name,
                      AttributeType.BINARY,
                      Base64.getEncoder().encodeToString(in.readByteArray()));
              case CE_URI -> new Attribute(name, AttributeType.URI, in.readStringRequireUtf8());
              case CE_URI_REF ->
                  new Attribute(name, AttributeType.URI_REF, in.readStringRequireUtf8());
              default ->
                  new Attribute(
                      name,
                      AttributeType.TIMESTAMP,
                      readTimestamp(CodedInputStream.newInstance(in.readByteArray()), name, where));
            };
      }
    }
    if (a == null) {
      return null;
    }
    if (EventValidator.CONTEXT_ATTRIBUTES.contains(name)) {
      boolean ok =
          a.type() == AttributeType.STRING
              || (name.equals(CloudEvent.TIME) && a.type() == AttributeType.TIMESTAMP)
              || (name.equals(CloudEvent.DATASCHEMA) && a.type() == AttributeType.URI)
              || (name.equals(CloudEvent.SOURCE) && a.type() == AttributeType.URI_REF);
      if (!ok) {
        throw new InvalidEventException(
            name, where + "." + name + ": must be a string, not ce_" + a.type().wireName());
      }
      return Attribute.string(name, a.text());
    }
    return a;
  }

  private static String readTimestamp(CodedInputStream in, String name, String where)
      throws IOException {
    long seconds = 0;
    int nanos = 0;
    int tag;
    while ((tag = in.readTag()) != 0) {
      if (tag == tag(1, WireFormat.WIRETYPE_VARINT)) {
        seconds = in.readInt64();
      } else if (tag == tag(2, WireFormat.WIRETYPE_VARINT)) {
        nanos = in.readInt32();
      } else {
        skip(in, tag, where);
      }
    }
    if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999_999_999) {
      throw new InvalidEventException(
          name,
          where
              + "."
              + name
              + ": ce_timestamp out of range (seconds="
              + seconds
              + " nanos="
              + nanos
              + ")");
    }
    return Rfc3339.canonical(Instant.ofEpochSecond(seconds, nanos));
  }

  private static void skip(CodedInputStream in, int tag, String where) throws IOException {
    if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_END_GROUP
        || WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_START_GROUP
        || !in.skipField(tag)) {
      throw new InvalidEventException(null, where + ": malformed protobuf (a group field)");
    }
  }

  private static InvalidEventException malformed(String where, IOException e) {
    String why =
        e instanceof InvalidProtocolBufferException
            ? "malformed protobuf (truncated, a bad length or tag, or invalid UTF-8)"
            : "malformed protobuf";
    return new InvalidEventException(null, where + ": " + why);
  }

  /** {@code event} as one serialized {@code CloudEvent}. */
  public static byte[] write(CloudEvent event) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      writeEvent(out, event);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** {@code events} as one serialized {@code CloudEventBatch}. */
  public static byte[] writeBatch(List<CloudEvent> events) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      for (CloudEvent e : events) {
        out.writeByteArray(1, write(e));
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void writeEvent(CodedOutputStream out, CloudEvent e) throws IOException {
    writeString(out, ID, e.text(CloudEvent.ID));
    writeString(out, SOURCE, e.text(CloudEvent.SOURCE));
    writeString(out, SPEC_VERSION, e.text(CloudEvent.SPECVERSION));
    writeString(out, TYPE, e.text(CloudEvent.TYPE));
    String ct = null;
    for (Attribute a : e.attributes()) {
      switch (a.name()) {
        case CloudEvent.ID, CloudEvent.SOURCE, CloudEvent.SPECVERSION, CloudEvent.TYPE -> {
          continue;
        }
        case CloudEvent.DATACONTENTTYPE -> ct = a.text();
        default -> {}
      }
      ByteArrayOutputStream entryBytes = new ByteArrayOutputStream();
      CodedOutputStream entry = CodedOutputStream.newInstance(entryBytes);
      entry.writeString(1, a.name());
      entry.writeByteArray(2, value(a));
      entry.flush();
      out.writeByteArray(ATTRIBUTES, entryBytes.toByteArray());
    }
    if (e.hasData()) {
      byte[] data = e.data();
      if ((ContentTypes.isJson(ct) || ContentTypes.isText(ct)) && ContentTypes.isUtf8(data)) {
        out.writeString(TEXT_DATA, new String(data, StandardCharsets.UTF_8));
      } else {
        out.writeByteArray(BINARY_DATA, data);
      }
    }
  }

  private static byte[] value(Attribute a) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    AttributeType type = a.type();
    if (a.name().equals(CloudEvent.TIME) && Rfc3339.isValid(a.text())) {
      type = AttributeType.TIMESTAMP;
    } else if (a.name().equals(CloudEvent.DATASCHEMA)) {
      type = AttributeType.URI;
    }
    switch (type) {
      case BOOLEAN -> out.writeBool(CE_BOOLEAN, a.text().equals("true"));
      case INTEGER -> out.writeInt32(CE_INTEGER, Integer.parseInt(a.text()));
      case BINARY -> out.writeByteArray(CE_BYTES, Base64.getDecoder().decode(a.text()));
      case URI -> out.writeString(CE_URI, a.text());
      case URI_REF -> out.writeString(CE_URI_REF, a.text());
      case TIMESTAMP -> {
        Instant at;
        try {
          at = Rfc3339.parse(a.text());
        } catch (DateTimeException x) {
          out.writeString(CE_STRING, a.text());
          break;
        }
        ByteArrayOutputStream ts = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(ts);
        if (at.getEpochSecond() != 0) {
          t.writeInt64(1, at.getEpochSecond());
        }
        if (at.getNano() != 0) {
          t.writeInt32(2, at.getNano());
        }
        t.flush();
        out.writeByteArray(CE_TIMESTAMP, ts.toByteArray());
      }
      default -> out.writeString(CE_STRING, a.text());
    }
    out.flush();
    return bytes.toByteArray();
  }

  private static void writeString(CodedOutputStream out, int field, String v) throws IOException {
    if (v != null && !v.isEmpty()) {
      out.writeString(field, v);
    }
  }
}
