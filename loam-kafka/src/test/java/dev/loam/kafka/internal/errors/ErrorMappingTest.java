package dev.loam.kafka.internal.errors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.CommitUnknownException;
import dev.loam.api.InvalidBatchException;
import dev.loam.api.NotOwnerException;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OutOfOrderSequenceException;
import dev.loam.api.ProducerFencedException;
import dev.loam.api.StaleCommitException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.kafka.internal.errors.ErrorMapping.Context;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The whole Loam → Kafka error table (docs/reference/kafka.md "Errors"), row by row. */
class ErrorMappingTest {
  static LoamException kind(Kind k) {
    return new LoamException(k, "failure of kind " + k);
  }

  static Stream<Arguments> table() {
    LoamException corruption = new LoamException(Kind.CORRUPTION, "record batch crc mismatch");
    return Stream.of(
        // Typed failures: the same code in both contexts.
        Arguments.of(
            new OutOfOrderSequenceException("gap"),
            Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
            Errors.OUT_OF_ORDER_SEQUENCE_NUMBER),
        Arguments.of(
            new ProducerFencedException("old epoch"),
            Errors.INVALID_PRODUCER_EPOCH,
            Errors.INVALID_PRODUCER_EPOCH),
        Arguments.of(
            new InvalidBatchException("bad crc", corruption),
            Errors.CORRUPT_MESSAGE,
            Errors.CORRUPT_MESSAGE),
        Arguments.of(
            new InvalidBatchException("transactional", null),
            Errors.INVALID_RECORD,
            Errors.INVALID_RECORD),
        Arguments.of(
            new OffsetOutOfRangeException("ns", "s", 0, 9, 0, 5),
            Errors.OFFSET_OUT_OF_RANGE,
            Errors.OFFSET_OUT_OF_RANGE),
        Arguments.of(
            new CommitUnknownException("unknown", null),
            Errors.REQUEST_TIMED_OUT,
            Errors.REQUEST_TIMED_OUT),
        Arguments.of(
            new StaleCommitException("stale"),
            Errors.NOT_LEADER_OR_FOLLOWER,
            Errors.NOT_LEADER_OR_FOLLOWER),
        Arguments.of(
            new NotOwnerException("ns", "s", "n2", "h:1", ""),
            Errors.NOT_LEADER_OR_FOLLOWER,
            Errors.NOT_CONTROLLER),
        Arguments.of(new TimeoutException(), Errors.REQUEST_TIMED_OUT, Errors.REQUEST_TIMED_OUT),
        Arguments.of(
            new InvalidConfigurationException("x"), Errors.INVALID_CONFIG, Errors.INVALID_CONFIG),
        // Kinds.
        Arguments.of(kind(Kind.INVALID), Errors.INVALID_REQUEST, Errors.INVALID_REQUEST),
        Arguments.of(
            kind(Kind.NOT_FOUND),
            Errors.UNKNOWN_TOPIC_OR_PARTITION,
            Errors.UNKNOWN_TOPIC_OR_PARTITION),
        Arguments.of(kind(Kind.UNAVAILABLE), Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_CONTROLLER),
        Arguments.of(kind(Kind.FENCED), Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_CONTROLLER),
        Arguments.of(kind(Kind.CONFLICT), Errors.INVALID_REQUEST, Errors.TOPIC_ALREADY_EXISTS),
        Arguments.of(kind(Kind.CORRUPTION), Errors.KAFKA_STORAGE_ERROR, Errors.KAFKA_STORAGE_ERROR),
        Arguments.of(
            kind(Kind.OUTCOME_UNKNOWN), Errors.REQUEST_TIMED_OUT, Errors.REQUEST_TIMED_OUT),
        Arguments.of(kind(Kind.INTERNAL), Errors.UNKNOWN_SERVER_ERROR, Errors.UNKNOWN_SERVER_ERROR),
        Arguments.of(kind(Kind.NOT_OWNER), Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_CONTROLLER),
        Arguments.of(
            new IllegalStateException("bug"),
            Errors.UNKNOWN_SERVER_ERROR,
            Errors.UNKNOWN_SERVER_ERROR));
  }

  @ParameterizedTest
  @MethodSource("table")
  void mapsEveryFailure(Throwable failure, Errors data, Errors admin) {
    assertThat(ErrorMapping.of(failure, Context.DATA)).isEqualTo(data);
    assertThat(ErrorMapping.of(failure, Context.ADMIN)).isEqualTo(admin);
    // Futures wrap failures; the mapping looks through the wrapper.
    assertThat(ErrorMapping.of(new CompletionException(failure), Context.DATA)).isEqualTo(data);
  }

  @ParameterizedTest
  @MethodSource("table")
  void retriableCodesOnlyWhereARetryCanSucceed(Throwable failure, Errors data, Errors admin) {
    boolean retriable = data.exception() instanceof RetriableException;
    // Kafka's own classification: UNKNOWN_TOPIC_OR_PARTITION is retriable (the topic may be
    // being created); a fenced producer is not.
    boolean nothingChangedOrUnknown =
        failure instanceof TimeoutException
            || failure instanceof CommitUnknownException
            || failure instanceof StaleCommitException
            || failure instanceof NotOwnerException
            || (failure instanceof InvalidBatchException ib && ib.getCause() != null)
            || (failure instanceof LoamException le
                && !(failure instanceof ProducerFencedException)
                && switch (le.kind()) {
                  case UNAVAILABLE, FENCED, OUTCOME_UNKNOWN, CORRUPTION, NOT_OWNER, NOT_FOUND ->
                      true;
                  default -> false;
                });
    assertThat(retriable).as("%s -> %s", failure, data).isEqualTo(nothingChangedOrUnknown);
  }
}
