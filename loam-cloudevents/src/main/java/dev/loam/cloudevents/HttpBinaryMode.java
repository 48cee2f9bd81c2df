package dev.loam.cloudevents;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The HTTP protocol binding's binary mode: one {@code ce-<name>} header per attribute (values
 * percent-encoded as the binding asks: space, {@code "}, {@code %} and everything outside printable
 * ASCII as UTF-8 {@code %XX}), {@code Content-Type} for {@code datacontenttype}, the data as the
 * body. Every value read is a string, since headers carry no types.
 */
public final class HttpBinaryMode {
  /** The header prefix of attributes. */
  public static final String PREFIX = "ce-";

  private HttpBinaryMode() {}

  /** True when {@code headers} (any case) hold a {@code ce-specversion} header. */
  public static boolean isBinaryMode(List<Map.Entry<String, String>> headers) {
    for (Map.Entry<String, String> h : headers) {
      if (h.getKey().equalsIgnoreCase("ce-specversion")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The event of a binary-mode message: attributes in header order, {@code body} as the data (none
   * when the body is empty and there is no {@code Content-Type}).
   */
  public static CloudEvent parse(List<Map.Entry<String, String>> headers, byte[] body) {
    List<Attribute> attrs = new ArrayList<>();
    boolean contentType = false;
    for (Map.Entry<String, String> h : headers) {
      String lower = h.getKey().toLowerCase(Locale.ROOT);
      String name;
      String value;
      if (lower.equals("content-type")) {
        name = CloudEvent.DATACONTENTTYPE;
        value = h.getValue();
        contentType = true;
      } else if (lower.startsWith(PREFIX)) {
        name = lower.substring(PREFIX.length());
        if (name.equals(CloudEvent.DATACONTENTTYPE)) {
          throw new InvalidEventException(
              name, "events[0].datacontenttype: send it as Content-Type, not ce-datacontenttype");
        }
        value = percentDecode(h.getValue(), name);
      } else {
        continue;
      }
      for (Attribute a : attrs) {
        if (a.name().equals(name)) {
          throw new InvalidEventException(name, "events[0]." + name + ": occurs twice");
        }
      }
      attrs.add(Attribute.string(name, value));
    }
    CloudEvent e = new CloudEvent(attrs, body.length == 0 && !contentType ? null : body);
    try {
      EventValidator.validate(e);
    } catch (InvalidEventException x) {
      throw x.at("events[0]");
    }
    return e;
  }

  /**
   * The headers of {@code event} in binary mode, in attribute order: {@code ce-<name>} with the
   * percent-encoded text, {@code content-type} for {@code datacontenttype}.
   */
  public static List<Map.Entry<String, String>> headers(CloudEvent event) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    for (Attribute a : event.attributes()) {
      if (a.name().equals(CloudEvent.DATACONTENTTYPE)) {
        out.add(Map.entry("content-type", a.text()));
      } else {
        out.add(Map.entry(PREFIX + a.name(), percentEncode(a.text())));
      }
    }
    return out;
  }

  /** {@code text} percent-encoded as the HTTP binding asks. */
  public static String percentEncode(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (byte x : text.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xff;
      if (c > 0x20 && c < 0x7f && c != '"' && c != '%') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        b.append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return b.toString();
  }

  /**
   * {@code value} with its {@code %XX} sequences decoded as UTF-8.
   *
   * @throws InvalidEventException naming {@code name} for a broken escape or bytes not UTF-8
   */
  public static String percentDecode(String value, String name) {
    if (value.indexOf('%') < 0) {
      return value;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(value.length());
    byte[] in = value.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < in.length; i++) {
      if (in[i] != '%') {
        out.write(in[i]);
        continue;
      }
      int hi = i + 1 < in.length ? Character.digit(in[i + 1], 16) : -1;
      int lo = i + 2 < in.length ? Character.digit(in[i + 2], 16) : -1;
      if (hi < 0 || lo < 0) {
        throw new InvalidEventException(
            name, "events[0]." + name + ": a % not followed by two hex digits");
      }
      out.write(hi * 16 + lo);
      i += 2;
    }
    String s = ContentTypes.utf8OrNull(out.toByteArray());
    if (s == null) {
      throw new InvalidEventException(
          name, "events[0]." + name + ": percent-encoded bytes are not UTF-8");
    }
    return s;
  }
}
