package dev.loam.storage.s3;

import dev.loam.store.UriParameters;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;

/**
 * How an {@link S3ObjectStore} uses S3's flexible checksums. AWS S3 and most emulators accept the
 * SDK's defaults; several S3-compatible servers (Ceph radosgw, older MinIO, s3rver) refuse the
 * {@code aws-chunked} bodies with a trailing checksum that "when supported" sends, or a checksum on
 * each multipart part, so each of the three is a setting (docs/reference/storage-s3.md).
 *
 * @param requestCalculation when the SDK adds a checksum to a request body: {@link
 *     When#WHEN_SUPPORTED} on every operation that takes one (the SDK's default, a CRC32 trailer),
 *     or {@link When#WHEN_REQUIRED} only where S3 requires one (DeleteObjects' Content-MD5)
 * @param responseValidation when the SDK checks a checksum S3 returns: when supported (every
 *     response that carries one) or only when required
 * @param partChecksum the checksum algorithm named at CreateMultipartUpload and sent with every
 *     part and in CompleteMultipartUpload, or {@link PartChecksum#NONE} for no part checksum
 */
public record S3Checksums(
    When requestCalculation, When responseValidation, PartChecksum partChecksum) {

  /** The SDK's behaviour: checksums whenever supported, CRC32 on every multipart part. */
  public static final S3Checksums DEFAULTS =
      new S3Checksums(When.WHEN_SUPPORTED, When.WHEN_SUPPORTED, PartChecksum.CRC32);

  /** What Ceph radosgw and similar S3-compatible servers accept: only required checksums. */
  public static final S3Checksums WHEN_REQUIRED =
      new S3Checksums(When.WHEN_REQUIRED, When.WHEN_REQUIRED, PartChecksum.NONE);

  public S3Checksums {
    Objects.requireNonNull(requestCalculation, "requestCalculation");
    Objects.requireNonNull(responseValidation, "responseValidation");
    Objects.requireNonNull(partChecksum, "partChecksum");
  }

  /** When the SDK calculates or validates a checksum. */
  public enum When {
    /** On every operation that supports one (the SDK's default). */
    WHEN_SUPPORTED,
    /** Only where the operation requires one. */
    WHEN_REQUIRED;

    /** The URI value: {@code when-supported} or {@code when-required}. */
    public String uriValue() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses a URI value for {@code parameter}; INVALID naming it and the values allowed. */
    public static When parse(String parameter, String value) {
      for (When w : values()) {
        if (w.uriValue().equalsIgnoreCase(value)) {
          return w;
        }
      }
      throw UriParameters.invalid(
          parameter, "must be when-supported or when-required " + parameter + "=" + shown(value));
    }

    RequestChecksumCalculation toRequest() {
      return this == WHEN_SUPPORTED
          ? RequestChecksumCalculation.WHEN_SUPPORTED
          : RequestChecksumCalculation.WHEN_REQUIRED;
    }

    ResponseChecksumValidation toResponse() {
      return this == WHEN_SUPPORTED
          ? ResponseChecksumValidation.WHEN_SUPPORTED
          : ResponseChecksumValidation.WHEN_REQUIRED;
    }
  }

  /**
   * The checksum of each multipart part. CRC64/NVME is not offered: the SDK computes it only with
   * the AWS CRT native library, which this module does not ship.
   */
  public enum PartChecksum {
    /** CRC32 (the default). */
    CRC32(ChecksumAlgorithm.CRC32),
    /** CRC32C. */
    CRC32C(ChecksumAlgorithm.CRC32_C),
    /** SHA-1. */
    SHA1(ChecksumAlgorithm.SHA1),
    /** SHA-256. */
    SHA256(ChecksumAlgorithm.SHA256),
    /** No part checksum: the upload names no algorithm and the parts carry none. */
    NONE(null);

    private final ChecksumAlgorithm algorithm;

    PartChecksum(ChecksumAlgorithm algorithm) {
      this.algorithm = algorithm;
    }

    /** The SDK's algorithm, or null for {@link #NONE}. */
    ChecksumAlgorithm algorithm() {
      return algorithm;
    }

    /** The URI value: {@code crc32}, {@code crc32c}, ..., {@code none}. */
    public String uriValue() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a URI value for {@code parameter}; INVALID naming it and the values allowed. */
    public static PartChecksum parse(String parameter, String value) {
      for (PartChecksum p : values()) {
        if (p.uriValue().equalsIgnoreCase(value)) {
          return p;
        }
      }
      throw UriParameters.invalid(
          parameter,
          "must be one of "
              + Arrays.stream(values())
                  .map(PartChecksum::uriValue)
                  .collect(Collectors.joining(", "))
              + " "
              + parameter
              + "="
              + shown(value));
    }
  }

  /** A changed copy. */
  public S3Checksums withRequestCalculation(When w) {
    return new S3Checksums(w, responseValidation, partChecksum);
  }

  /** A changed copy. */
  public S3Checksums withResponseValidation(When w) {
    return new S3Checksums(requestCalculation, w, partChecksum);
  }

  /** A changed copy. */
  public S3Checksums withPartChecksum(PartChecksum p) {
    return new S3Checksums(requestCalculation, responseValidation, p);
  }

  /** The URI form, as {@code request-checksum=...&response-checksum=...&part-checksum=...}. */
  @Override
  public String toString() {
    return "request-checksum="
        + requestCalculation.uriValue()
        + "&response-checksum="
        + responseValidation.uriValue()
        + "&part-checksum="
        + partChecksum.uriValue();
  }

  /** A value as it may appear in a message: cut, with control characters escaped. */
  private static String shown(String value) {
    String cut = value.length() > 40 ? value.substring(0, 40) + "..." : value;
    StringBuilder out = new StringBuilder();
    for (char c : cut.toCharArray()) {
      out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }
}
