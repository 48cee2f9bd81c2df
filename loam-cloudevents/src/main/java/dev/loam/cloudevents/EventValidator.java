package dev.loam.cloudevents;

import java.util.Set;

/**
 * The ingest rules of docs/reference/cloudevents.md "Validation" that do not depend on the format
 * an event came in: specversion 1.0, non-empty id, source and type, an RFC 3339 time, attribute
 * names of lowercase ASCII letters and digits, the context attributes as strings, and text that is
 * valid Unicode. The formats check their own syntax (JSON types, {@code data} with {@code
 * data_base64}) while parsing.
 */
public final class EventValidator {
  /** The attributes the CloudEvents spec defines; every other attribute is an extension. */
  public static final Set<String> CONTEXT_ATTRIBUTES =
      Set.of(
          CloudEvent.SPECVERSION,
          CloudEvent.ID,
          CloudEvent.SOURCE,
          CloudEvent.TYPE,
          CloudEvent.DATACONTENTTYPE,
          CloudEvent.DATASCHEMA,
          CloudEvent.SUBJECT,
          CloudEvent.TIME);

  private EventValidator() {}

  /**
   * Checks {@code event}.
   *
   * @throws InvalidEventException naming the first attribute at fault
   */
  public static void validate(CloudEvent event) {
    for (Attribute a : event.attributes()) {
      if (!isValidName(a.name())) {
        throw new InvalidEventException(
            a.name(),
            quote(a.name())
                + ": an attribute name is one or more lowercase ASCII letters and digits");
      }
      if (CONTEXT_ATTRIBUTES.contains(a.name()) && a.type() != AttributeType.STRING) {
        throw new InvalidEventException(a.name(), a.name() + ": must be a string");
      }
      if (!isValidUnicode(a.text())) {
        throw new InvalidEventException(
            a.name(), a.name() + ": holds an unpaired surrogate (not valid Unicode)");
      }
    }
    String spec = event.text(CloudEvent.SPECVERSION);
    if (spec == null) {
      throw new InvalidEventException(CloudEvent.SPECVERSION, "specversion: missing");
    }
    if (!spec.equals("1.0")) {
      throw new InvalidEventException(
          CloudEvent.SPECVERSION, "specversion: " + quote(spec) + " is not 1.0");
    }
    for (String required : new String[] {CloudEvent.ID, CloudEvent.SOURCE, CloudEvent.TYPE}) {
      String v = event.text(required);
      if (v == null) {
        throw new InvalidEventException(required, required + ": missing");
      }
      if (v.isEmpty()) {
        throw new InvalidEventException(required, required + ": empty");
      }
    }
    String time = event.text(CloudEvent.TIME);
    if (time != null && !Rfc3339.isValid(time)) {
      throw new InvalidEventException(
          CloudEvent.TIME, "time: " + quote(time) + " is not an RFC 3339 date-time");
    }
  }

  /** True when {@code name} is one or more of {@code a-z} and {@code 0-9}. */
  public static boolean isValidName(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
        return false;
      }
    }
    return true;
  }

  /** True when {@code s} has no unpaired surrogate, so it encodes to UTF-8 and back unchanged. */
  public static boolean isValidUnicode(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /** {@code s} in double quotes, shortened past 64 characters, for messages. */
  static String quote(String s) {
    String shown = s.length() > 64 ? s.substring(0, 64) + "…" : s;
    StringBuilder b = new StringBuilder(shown.length() + 2).append('"');
    for (int i = 0; i < shown.length(); i++) {
      char c = shown.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\' || Character.isSurrogate(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
