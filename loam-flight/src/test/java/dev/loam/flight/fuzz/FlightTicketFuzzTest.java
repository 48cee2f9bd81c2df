package dev.loam.flight.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.error.LoamException;
import dev.loam.flight.FlightTicket;

/**
 * Coverage-guided fuzzing of the Flight ticket parser ({@link FlightTicket#parse}), which reads
 * every DoGet request's ticket bytes (docs/reference/arrow.md "Arrow Flight").
 *
 * <p>Contract: an INVALID {@link LoamException} whose message starts {@code flight ticket
 * invalid:}, or a ticket that is valid by construction (names present, partition and offsets in
 * range, no column twice) and encodes to bytes that parse back to the same ticket.
 */
class FlightTicketFuzzTest {
  @DictionaryEntries({
    "{\"namespace\":\"n\",\"stream\":\"s\",\"partition\":0,\"from\":0,\"to\":1}",
    "\"columns\":[\"a\",\"b\"]",
    "\"namespace\"",
    "\"stream\"",
    "\"partition\"",
    "\"from\"",
    "\"to\"",
    "\"columns\"",
    "null",
    "-1",
    "9223372036854775807"
  })
  @FuzzTest
  void parse(byte[] input) {
    FlightTicket t;
    try {
      t = FlightTicket.parse(input);
    } catch (LoamException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).startsWith("flight ticket invalid:");
      return;
    }
    assertThat(t.namespace()).isNotEmpty();
    assertThat(t.stream()).isNotEmpty();
    assertThat(t.partition()).isNotNegative();
    assertThat(t.from()).isNotNegative().isLessThanOrEqualTo(t.to());
    assertThat(t.columns()).doesNotHaveDuplicates();
    assertThat(FlightTicket.parse(t.encode())).isEqualTo(t);
  }
}
