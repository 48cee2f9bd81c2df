package dev.loam.cloudevents;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One CloudEvent as Loam keeps it: the context attributes in the order they were sent (the required
 * ones included; {@code datacontenttype} is an attribute like the others) and the data as bytes, or
 * no data. Values are kept as text (see {@link Attribute}), so an event written back has the names,
 * values and order it was read with.
 *
 * <p>Construction checks nothing beyond non-null parts and unique names; {@link
 * EventValidator#validate} applies the ingest rules.
 */
public final class CloudEvent {
  /** The attributes every event has, in the order Loam writes a synthesized event. */
  public static final String SPECVERSION = "specversion";

  public static final String ID = "id";
  public static final String SOURCE = "source";
  public static final String TYPE = "type";
  public static final String DATACONTENTTYPE = "datacontenttype";
  public static final String DATASCHEMA = "dataschema";
  public static final String SUBJECT = "subject";
  public static final String TIME = "time";
  public static final String PARTITIONKEY = "partitionkey";

  private final List<Attribute> attributes;
  private final byte[] data;

  /**
   * An event with {@code attributes} in order and {@code data} (null: no data).
   *
   * @throws IllegalArgumentException when two attributes share a name
   */
  public CloudEvent(List<Attribute> attributes, byte[] data) {
    this.attributes = List.copyOf(attributes);
    for (int i = 0; i < this.attributes.size(); i++) {
      for (int j = 0; j < i; j++) {
        if (this.attributes.get(i).name().equals(this.attributes.get(j).name())) {
          throw new IllegalArgumentException(
              "attribute " + this.attributes.get(i).name() + " occurs twice");
        }
      }
    }
    this.data = data == null ? null : data.clone();
  }

  /** The attributes, in order. */
  public List<Attribute> attributes() {
    return attributes;
  }

  /** The attribute named {@code name}, if present. */
  public Optional<Attribute> attribute(String name) {
    for (Attribute a : attributes) {
      if (a.name().equals(name)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }

  /** The text of attribute {@code name}, or null when absent. */
  public String text(String name) {
    return attribute(name).map(Attribute::text).orElse(null);
  }

  /** The data bytes (a copy), or null when the event has no data. */
  public byte[] data() {
    return data == null ? null : data.clone();
  }

  /** True when the event has data (possibly empty). */
  public boolean hasData() {
    return data != null;
  }

  /** This event with its attributes replaced (the data kept). */
  public CloudEvent withAttributes(List<Attribute> replaced) {
    return new CloudEvent(replaced, data);
  }

  /** This event with {@code attribute} replacing the one of the same name, or appended. */
  public CloudEvent with(Attribute attribute) {
    List<Attribute> out = new ArrayList<>(attributes);
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).name().equals(attribute.name())) {
        out.set(i, attribute);
        return new CloudEvent(out, data);
      }
    }
    out.add(attribute);
    return new CloudEvent(out, data);
  }

  /**
   * The idempotency key: SHA-256 of the UTF-8 source, one 0x00 byte and the UTF-8 id. Requires both
   * attributes.
   */
  public byte[] idempotencyKey() {
    String source = Objects.requireNonNull(text(SOURCE), "source");
    String id = Objects.requireNonNull(text(ID), "id");
    return idempotencyKey(source, id);
  }

  /** SHA-256(source ‖ 0x00 ‖ id), as {@link #idempotencyKey()}. */
  public static byte[] idempotencyKey(String source, String id) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(source.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(id.getBytes(StandardCharsets.UTF_8));
      return sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CloudEvent e
        && attributes.equals(e.attributes)
        && Arrays.equals(data, e.data);
  }

  @Override
  public int hashCode() {
    return 31 * attributes.hashCode() + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "CloudEvent[attributes="
        + attributes
        + ", data="
        + (data == null ? "none" : data.length + " bytes")
        + "]";
  }
}
