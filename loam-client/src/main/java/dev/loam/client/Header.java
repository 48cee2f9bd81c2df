package dev.loam.client;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A record header; a name may repeat (as in Kafka). The value may be null.
 *
 * @param value the raw bytes; not copied, do not change them after handing them over
 */
public record Header(String name, byte[] value) {
  public Header {
    Objects.requireNonNull(name, "name");
  }

  public static Header of(String name, String value) {
    return new Header(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  /** The value as UTF-8 text (null for a null value). */
  public String valueAsString() {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }
}
