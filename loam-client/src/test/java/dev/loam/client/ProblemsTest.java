package dev.loam.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.client.internal.Problems;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Problem answers (docs/reference/http-api.md "Errors") map to the typed exceptions
 * docs/reference/client.md lists, including the answers a test cluster cannot easily be made to
 * give (429, 503, 504, 500).
 */
class ProblemsTest {
  static final String NODE = "http://10.0.0.5:8080";

  static LoamClientException map(int status, String code, String extra, Map<String, String> h) {
    String body =
        "{\"type\":\"urn:loam:problem:"
            + code
            + "\",\"status\":"
            + status
            + ",\"detail\":\"something failed stream=a/b\",\"code\":\""
            + code
            + "\""
            + extra
            + "}";
    HttpHeaders headers =
        HttpHeaders.of(
            h.entrySet().stream()
                .collect(
                    java.util.stream.Collectors.toMap(
                        Map.Entry::getKey, e -> List.of(e.getValue()))),
            (a, b) -> true);
    return Problems.toException(status, headers, body.getBytes(StandardCharsets.UTF_8), NODE);
  }

  @Test
  void eachStatusAndCodeHasItsType() {
    assertThat(map(400, "invalid", "", Map.of())).isInstanceOf(InvalidRequestException.class);
    assertThat(map(415, "unsupported_media_type", "", Map.of()))
        .isInstanceOf(InvalidRequestException.class);
    assertThat(map(404, "not_found", "", Map.of())).isInstanceOf(NotFoundException.class);
    assertThat(map(409, "conflict", "", Map.of())).isInstanceOf(ConflictException.class);
    assertThat(map(409, "fenced", "", Map.of())).isInstanceOf(FencedException.class);
    assertThat(map(500, "corruption", "", Map.of()))
        .isInstanceOf(ServerErrorException.class)
        .extracting(LoamClientException::code)
        .isEqualTo("corruption");
    LoamClientException unknown = map(504, "outcome_unknown", "", Map.of());
    assertThat(unknown).isInstanceOf(OutcomeUnknownException.class);
    assertThat(unknown.retryable()).isFalse();
  }

  @Test
  void transientAnswersAreRetryableWithTheServersWait() {
    LoamClientException busy = map(503, "unavailable", "", Map.of("Retry-After", "1"));
    assertThat(busy).isInstanceOf(UnavailableException.class);
    assertThat(busy.retryable()).isTrue();
    assertThat(((UnavailableException) busy).retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(map(503, "timeout", "", Map.of()).code()).isEqualTo("timeout");
    LoamClientException quota =
        map(429, "quota_exceeded", ",\"retry_after_seconds\":3", Map.of("Retry-After", "3"));
    assertThat(quota).isInstanceOf(QuotaExceededException.class);
    assertThat(((QuotaExceededException) quota).retryAfter()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void offsetOutOfRangeCarriesBothBoundsAndTheMessageNamesTheNode() {
    LoamClientException e =
        map(416, "offset_out_of_range", ",\"log_start_offset\":4,\"high_watermark\":9", Map.of());
    assertThat(e)
        .isInstanceOfSatisfying(
            OffsetOutOfRangeException.class,
            o -> {
              assertThat(o.logStartOffset()).isEqualTo(4);
              assertThat(o.highWatermark()).isEqualTo(9);
            });
    assertThat(e.getMessage())
        .isEqualTo("something failed stream=a/b code=offset_out_of_range status=416 node=" + NODE);
    assertThat(e.node()).contains(NODE);
  }

  @Test
  void notOwnerNamesTheOwnerFromTheBodyOrTheHeader() {
    LoamClientException redirect =
        map(
            307,
            "not_owner",
            ",\"owner\":\"n2\",\"owner_address\":\"10.0.0.6:8080\"",
            Map.of("Loam-Owner", "n2", "Location", "http://10.0.0.6:8080/v1/x"));
    assertThat(redirect)
        .isInstanceOfSatisfying(
            NotOwnerException.class,
            n -> {
              assertThat(n.ownerNodeId()).isEqualTo("n2");
              assertThat(n.ownerAddress()).isEqualTo("http://10.0.0.6:8080");
            });
    // An owner without an advertised address: 409 not_owner, no address to go to.
    LoamClientException noAddress = map(409, "not_owner", ",\"owner\":\"n3\"", Map.of());
    assertThat(noAddress)
        .isInstanceOfSatisfying(
            NotOwnerException.class,
            n -> {
              assertThat(n.ownerNodeId()).isEqualTo("n3");
              assertThat(n.ownerAddress()).isEmpty();
            });
  }

  @Test
  void anAnswerThatIsNotAProblemDocumentIsStillTyped() {
    HttpHeaders none = HttpHeaders.of(Map.of(), (a, b) -> true);
    LoamClientException e =
        Problems.toException(
            502, none, "<html>bad gateway</html>".getBytes(StandardCharsets.UTF_8), NODE);
    assertThat(e).isInstanceOf(ServerErrorException.class);
    assertThat(e.status()).isEqualTo(502);
    assertThat(e.getMessage()).contains("HTTP 502").contains("node=" + NODE);
  }
}
