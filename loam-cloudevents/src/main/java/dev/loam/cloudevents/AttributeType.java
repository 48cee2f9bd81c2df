package dev.loam.cloudevents;

import java.util.Optional;

/**
 * The type of an attribute value. Every value is kept as the text that was sent; the type says how
 * structured JSON and protobuf write it back. Extensions of a type other than {@link #STRING} are
 * listed in the record header {@code loam_ce_types} under their {@link #wireName()}.
 */
public enum AttributeType {
  /** A string (JSON string, protobuf {@code ce_string}, or any binary-mode header). */
  STRING("string"),
  /** A JSON integer literal that fits 32 bits, or protobuf {@code ce_integer}. */
  INTEGER("integer"),
  /** Any other JSON number, kept as its literal. */
  NUMBER("number"),
  /** {@code true} or {@code false}. */
  BOOLEAN("boolean"),
  /** Protobuf {@code ce_uri}. */
  URI("uri"),
  /** Protobuf {@code ce_uri_ref}. */
  URI_REF("urireference"),
  /** Protobuf {@code ce_timestamp}, kept in RFC 3339 UTC form. */
  TIMESTAMP("timestamp"),
  /** Protobuf {@code ce_bytes}, kept in base64. */
  BINARY("binary");

  private final String wireName;

  AttributeType(String wireName) {
    this.wireName = wireName;
  }

  /** The name of this type in {@code loam_ce_types}. */
  public String wireName() {
    return wireName;
  }

  /** The type named {@code name} in {@code loam_ce_types}, if any. */
  public static Optional<AttributeType> ofWireName(String name) {
    for (AttributeType t : values()) {
      if (t.wireName.equals(name)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
