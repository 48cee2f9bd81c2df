package dev.loam.flight;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The DoGet ticket parser: every valid ticket round-trips, and arbitrary bytes or a damaged ticket
 * is either a valid ticket or INVALID, never another exception.
 */
class FlightTicketPropertyTest {
  @Provide
  Arbitrary<String> names() {
    return Arbitraries.strings().ofMinLength(1).ofMaxLength(20);
  }

  @Provide
  Arbitrary<List<String>> columns() {
    return Arbitraries.strings().ofMaxLength(8).list().ofMaxSize(5).uniqueElements();
  }

  @Property(tries = 300)
  void roundTrips(
      @ForAll("names") String ns,
      @ForAll("names") String stream,
      @ForAll @IntRange(min = 0) int partition,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long from,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long span,
      @ForAll("columns") List<String> columns) {
    FlightTicket t = new FlightTicket(ns, stream, partition, from, from + span, columns);
    assertThat(FlightTicket.parse(t.encode())).isEqualTo(t);
  }

  @Property(tries = 500)
  void garbageIsInvalidOrATicket(@ForAll byte[] bytes) {
    check(bytes);
  }

  @Property(tries = 500)
  void damagedTicketsAreInvalidOrATicket(@ForAll int where, @ForAll byte mask) {
    byte[] b = new FlightTicket("ns", "s", 3, 10, 20, List.of("a", "b")).encode();
    b[Math.floorMod(where, b.length)] ^= (mask == 0 ? 1 : mask);
    check(b);
  }

  private static void check(byte[] bytes) {
    try {
      FlightTicket t = FlightTicket.parse(bytes);
      assertThat(FlightTicket.parse(t.encode())).isEqualTo(t);
    } catch (LoamException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).startsWith("flight ticket invalid");
    }
  }

  @Property(tries = 50)
  void namesTheProblem(@ForAll @IntRange(min = -100, max = -1) int partition) {
    String json =
        "{\"namespace\":\"n\",\"stream\":\"s\",\"partition\":"
            + partition
            + ",\"from\":0,\"to\":1}";
    try {
      FlightTicket.parse(json.getBytes(StandardCharsets.UTF_8));
      throw new AssertionError("accepted");
    } catch (LoamException e) {
      assertThat(e.getMessage()).contains("partition must be >= 0");
    }
  }
}
