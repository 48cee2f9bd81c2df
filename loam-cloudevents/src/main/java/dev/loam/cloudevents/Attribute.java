package dev.loam.cloudevents;

import java.util.Objects;

/**
 * One context attribute of an event: its name, its type and its value as the text that was sent (a
 * JSON number's literal, a header's decoded value), so it round-trips byte for byte.
 */
public record Attribute(String name, AttributeType type, String text) {
  public Attribute {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(text, "text");
  }

  /** A string attribute. */
  public static Attribute string(String name, String text) {
    return new Attribute(name, AttributeType.STRING, text);
  }
}
