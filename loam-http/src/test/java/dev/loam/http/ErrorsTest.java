package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.http.internal.Errors;
import dev.loam.http.internal.HttpReply;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ErrorsTest {
  @Test
  void everyKindMapsToItsDocumentedStatus() {
    for (Kind k : Kind.values()) {
      assertThat(Errors.statusOf(k).code())
          .as(k.name())
          .isEqualTo(ErrorMappingIT.expectedStatus(k));
    }
  }

  @Test
  void offsetOutOfRangeIs416WithTheValidRange() {
    HttpReply r =
        Errors.toReply(
            new CompletionException(new OffsetOutOfRangeException("ns", "s", 0, 9, 2, 5)));
    assertThat(r.status().code()).isEqualTo(416);
    String body = new String(r.body(), StandardCharsets.UTF_8);
    assertThat(body)
        .contains("\"code\":\"offset_out_of_range\"")
        .contains("\"log_start_offset\":2")
        .contains("\"high_watermark\":5")
        .contains("\"type\":\"urn:loam:problem:offset_out_of_range\"");
  }

  @Test
  void unavailableCarriesRetryAfter() {
    HttpReply r = Errors.toReply(new LoamException(Kind.UNAVAILABLE, "busy"));
    assertThat(r.headers()).containsEntry("Retry-After", "1");
    assertThat(r.contentType()).isEqualTo("application/problem+json");
  }

  @Test
  void aRejectedExecutionOfAStoppingNodeIsAnUnknownOutcome504NotA500() {
    dev.loam.http.internal.ApiException e =
        Errors.toApi(
            new CompletionException(
                new java.util.concurrent.RejectedExecutionException("pool terminated")));
    // Not 503: a 503 tells a plain producer "not appended", and the work may have been done.
    assertThat(e.status())
        .isEqualTo(io.netty.handler.codec.http.HttpResponseStatus.GATEWAY_TIMEOUT);
    assertThat(e.kind()).isEqualTo(Kind.OUTCOME_UNKNOWN);
    assertThat(e.code()).isEqualTo("outcome_unknown");
    assertThat(e.getMessage()).contains("pool terminated").contains("outcome is unknown");
  }

  @Test
  void anUnexpectedFailureIsStillAnInternal500() {
    dev.loam.http.internal.ApiException e = Errors.toApi(new IllegalStateException("bug"));
    assertThat(e.status())
        .isEqualTo(io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR);
    assertThat(e.code()).isEqualTo("internal");
  }
}
