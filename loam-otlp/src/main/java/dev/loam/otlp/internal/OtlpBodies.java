package dev.loam.otlp.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.loam.otlp.internal.OtlpRefusal.Reason;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * Decodes an OTLP/HTTP logs body (docs/reference/otlp.md "Transports"): the {@code
 * Content-Encoding} ({@code gzip} or none) first, bounded by the size limit, then protobuf or OTLP
 * JSON by {@code Content-Type}. Every failure is an {@link OtlpRefusal}: 415 for an unknown type or
 * coding, 413 past the limit, 400 for anything malformed; no other exception escapes, whatever the
 * bytes (a property test and a fuzz target hold it to that). Pure and thread-safe.
 */
public final class OtlpBodies {
  /** How a body is encoded. */
  public enum Format {
    PROTOBUF,
    JSON
  }

  private OtlpBodies() {}

  /**
   * The format a {@code Content-Type} names (parameters such as {@code charset} ignored), or 415
   * naming it.
   */
  public static Format format(String contentType) {
    if (contentType == null) {
      throw new OtlpRefusal(
          Reason.UNSUPPORTED_MEDIA_TYPE,
          "Content-Type is required: application/x-protobuf or application/json");
    }
    int semi = contentType.indexOf(';');
    String type =
        (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
    return switch (type) {
      case "application/x-protobuf", "application/protobuf" -> Format.PROTOBUF;
      case "application/json" -> Format.JSON;
      default ->
          throw new OtlpRefusal(
              Reason.UNSUPPORTED_MEDIA_TYPE,
              "unsupported Content-Type="
                  + printable(contentType)
                  + " (OTLP/HTTP takes application/x-protobuf or application/json)");
    };
  }

  /** Decodes a whole body: coding, then format. */
  public static ExportLogsServiceRequest decode(
      String contentType, String contentEncoding, byte[] body, int maxBytes) {
    Format f = format(contentType);
    byte[] plain = decompress(contentEncoding, body, maxBytes);
    return f == Format.PROTOBUF ? parseProtobuf(plain) : OtlpJson.parse(plain);
  }

  /**
   * The body without its {@code Content-Encoding}: {@code gzip} is inflated up to {@code maxBytes}
   * (413 beyond), none or {@code identity} returns it as is, anything else is 415.
   */
  public static byte[] decompress(String contentEncoding, byte[] body, int maxBytes) {
    if (body.length > maxBytes) {
      throw tooLarge(body.length, maxBytes);
    }
    String coding = contentEncoding == null ? "" : contentEncoding.strip().toLowerCase(Locale.ROOT);
    switch (coding) {
      case "", "identity":
        return body;
      case "gzip", "x-gzip":
        return gunzip(body, maxBytes);
      default:
        throw new OtlpRefusal(
            Reason.UNSUPPORTED_MEDIA_TYPE,
            "unsupported Content-Encoding="
                + printable(contentEncoding)
                + " (OTLP/HTTP takes gzip or none)");
    }
  }

  private static byte[] gunzip(byte[] body, int maxBytes) {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body), 8192)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(maxBytes, body.length * 4));
      byte[] buf = new byte[8192];
      long total = 0;
      int n;
      while ((n = in.read(buf)) > 0) {
        total += n;
        if (total > maxBytes) {
          throw tooLarge(total, maxBytes);
        }
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    } catch (IOException | RuntimeException e) {
      if (e instanceof OtlpRefusal r) {
        throw r;
      }
      // ZipException, EOFException (truncated), and the IllegalArgumentException some corrupt
      // headers raise.
      throw OtlpRefusal.malformed(
          "the body is not valid gzip (Content-Encoding: gzip): " + e.getMessage());
    }
  }

  /** A protobuf {@code ExportLogsServiceRequest}, or 400 naming the failure. */
  public static ExportLogsServiceRequest parseProtobuf(byte[] bytes) {
    try {
      return ExportLogsServiceRequest.parseFrom(bytes);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw OtlpRefusal.malformed(
          "the body is not a protobuf ExportLogsServiceRequest: " + e.getMessage());
    }
  }

  private static OtlpRefusal tooLarge(long size, int max) {
    return new OtlpRefusal(
        Reason.TOO_LARGE,
        "the request body is too large bodyBytes=" + size + " maxRequestBytes=" + max);
  }

  /** A header value safe to put in a message: at most 64 printable ASCII characters. */
  static String printable(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length() && b.length() < 64; i++) {
      char c = s.charAt(i);
      b.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return b.toString();
  }
}
