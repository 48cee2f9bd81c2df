package dev.loam.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.client.ConflictException;
import dev.loam.client.FencedException;
import dev.loam.client.InvalidRequestException;
import dev.loam.client.LoamClientException;
import dev.loam.client.NotFoundException;
import dev.loam.client.NotOwnerException;
import dev.loam.client.OffsetOutOfRangeException;
import dev.loam.client.OutcomeUnknownException;
import dev.loam.client.QuotaExceededException;
import dev.loam.client.ServerErrorException;
import dev.loam.client.UnavailableException;
import java.net.http.HttpHeaders;
import java.time.Duration;

/**
 * Maps an error answer (an RFC 9457 problem document, docs/reference/http-api.md "Errors") to the
 * typed client exception a caller handles.
 */
public final class Problems {
  private Problems() {}

  /** The exception for a non-2xx answer from {@code node}. */
  public static LoamClientException toException(
      int status, HttpHeaders headers, byte[] body, String node) {
    JsonNode p = Wire.readOrNull(body);
    String code = p == null ? "" : p.path("code").asText("");
    String detail = p == null ? "" : p.path("detail").asText("");
    String message =
        (detail.isEmpty() ? "HTTP " + status : detail)
            + " code="
            + (code.isEmpty() ? "none" : code)
            + " status="
            + status
            + " node="
            + node;
    Duration retryAfter = retryAfter(headers);
    if (status == 307 || code.equals("not_owner")) {
      String owner =
          p != null && p.hasNonNull("owner")
              ? p.get("owner").asText()
              : headers.firstValue("Loam-Owner").orElse("");
      String address =
          p != null && p.hasNonNull("owner_address") ? p.get("owner_address").asText() : "";
      return new NotOwnerException(
          status, message + " owner=" + owner, node, owner, Wire.normaliseAddress(address));
    }
    return switch (status) {
      case 400, 405, 406, 413, 415 ->
          new InvalidRequestException(code.isEmpty() ? "invalid" : code, status, message, node);
      case 404 -> new NotFoundException(code.isEmpty() ? "not_found" : code, message, node);
      case 409 ->
          code.equals("fenced")
              ? new FencedException(message, node)
              : new ConflictException(message, node);
      case 416 ->
          new OffsetOutOfRangeException(
              message,
              node,
              p == null ? -1 : p.path("log_start_offset").asLong(-1),
              p == null ? -1 : p.path("high_watermark").asLong(-1));
      case 429 -> new QuotaExceededException(message, node, retryAfter);
      case 503 ->
          new UnavailableException(
              code.isEmpty() ? "unavailable" : code, status, message, node, retryAfter, null);
      case 504 -> new OutcomeUnknownException(status, message, node, null);
      default ->
          new ServerErrorException(code.isEmpty() ? "internal" : code, status, message, node);
    };
  }

  private static Duration retryAfter(HttpHeaders headers) {
    try {
      return headers
          .firstValue("Retry-After")
          .map(s -> Duration.ofSeconds(Long.parseLong(s.trim())))
          .orElse(Duration.ZERO);
    } catch (NumberFormatException e) {
      return Duration.ZERO;
    }
  }
}
