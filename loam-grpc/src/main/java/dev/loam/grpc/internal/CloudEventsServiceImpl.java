package dev.loam.grpc.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.loam.cloudevents.CloudEvent;
import dev.loam.cloudevents.CloudEventIngest;
import dev.loam.cloudevents.IngestResult;
import dev.loam.cloudevents.InvalidEventException;
import dev.loam.cloudevents.JsonFormat;
import dev.loam.cloudevents.ProtobufFormat;
import dev.loam.grpc.internal.Calls.Need;
import dev.loam.grpc.internal.GrpcErrors.Subject;
import dev.loam.grpc.v1.CloudEventsServiceGrpc;
import dev.loam.grpc.v1.ErrorReason;
import dev.loam.grpc.v1.EventOutcome;
import dev.loam.grpc.v1.EventResult;
import dev.loam.grpc.v1.IngestEventsRequest;
import dev.loam.grpc.v1.IngestEventsResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code loam.v1.CloudEventsService}: CloudEvents ingest with an answer per event, through the
 * transport-independent {@link CloudEventIngest} the HTTP route uses. The events arrive as {@code
 * io.cloudevents.v1.CloudEvent} messages; they are read by the same codec as the HTTP protobuf
 * format, so validation and the stored layout are the same on both transports.
 */
public final class CloudEventsServiceImpl
    extends CloudEventsServiceGrpc.CloudEventsServiceImplBase {
  private static final Pattern INDEX = Pattern.compile("^events\\[(\\d+)\\]");

  private final Calls calls;
  private final Duration window;

  public CloudEventsServiceImpl(Calls calls, Duration window) {
    this.calls = calls;
    this.window = window;
  }

  @Override
  public void ingest(IngestEventsRequest req, StreamObserver<IngestEventsResponse> out) {
    calls.unary(
        out,
        Need.PRODUCE,
        req.getNamespace(),
        ns -> Subject.of(ns, req.getStream(), req.hasPartition() ? req.getPartition() : -1),
        c -> {
          String stream = Convert.required("stream", req.getStream());
          OptionalInt partition = OptionalInt.empty();
          if (req.hasPartition()) {
            if (req.getPartition() < 0) {
              throw GrpcErrors.invalid(
                  "partition must be at least 0 partition=" + req.getPartition());
            }
            partition = OptionalInt.of(req.getPartition());
          }
          byte[] batch;
          List<CloudEvent> events;
          try {
            batch = batchBytes(req);
            events = ProtobufFormat.parseBatch(batch);
          } catch (InvalidEventException e) {
            throw refusal(e, c.namespace(), stream);
          }
          c.requireTimeLeft();
          long bytes = batch.length;
          return new CloudEventIngest(calls.log)
              .ingest(
                  c.namespace(),
                  stream,
                  events,
                  partition,
                  () -> calls.quotas.charge(c.namespace(), bytes),
                  window)
              .thenApply(CloudEventsServiceImpl::answer);
        });
  }

  /**
   * The request's events, parsed and validated as the HTTP protobuf format parses a batch.
   *
   * @throws InvalidEventException naming {@code events[i]} and the attribute at fault
   */
  public static List<CloudEvent> events(IngestEventsRequest req) {
    return ProtobufFormat.parseBatch(batchBytes(req));
  }

  /**
   * The request's events as one serialized CloudEvents protobuf batch (field 1, repeated), the
   * input of {@link ProtobufFormat#parseBatch}, which numbers each refusal by its index.
   */
  private static byte[] batchBytes(IngestEventsRequest req) {
    if (req.getEventsCount() > JsonFormat.MAX_EVENTS) {
      throw new InvalidEventException(
          null, "events: more than " + JsonFormat.MAX_EVENTS + " events in one request");
    }
    ByteString.Output buf = ByteString.newOutput();
    CodedOutputStream cos = CodedOutputStream.newInstance(buf);
    try {
      for (var e : req.getEventsList()) {
        cos.writeBytes(1, e.toByteString());
      }
      cos.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return buf.toByteString().toByteArray();
  }

  /**
   * A validation refusal: INVALID_ARGUMENT whose ErrorInfo names the event's {@code index} and the
   * {@code attribute}.
   */
  public static StatusRuntimeException refusal(
      InvalidEventException e, String namespace, String stream) {
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put("namespace", namespace);
    meta.put("stream", stream);
    Matcher m = INDEX.matcher(e.getMessage() == null ? "" : e.getMessage());
    if (m.find()) {
      meta.put("index", m.group(1));
    }
    if (e.attribute() != null) {
      meta.put("attribute", e.attribute());
    }
    return GrpcErrors.status(
        Status.Code.INVALID_ARGUMENT,
        ErrorReason.INVALID,
        e.getMessage() + "; nothing was stored",
        meta,
        0);
  }

  private static IngestEventsResponse answer(IngestResult res) {
    IngestEventsResponse.Builder b =
        IngestEventsResponse.newBuilder().setConsistencyToken(res.consistencyToken());
    // the claim lapses on the metastore clock, which follows the nodes' clocks
    long retryAfter =
        res.retryAtMillis() < 0
            ? 0
            : Math.max(1000, res.retryAtMillis() - System.currentTimeMillis());
    for (int i = 0; i < res.answers().size(); i++) {
      IngestResult.EventAnswer a = res.answers().get(i);
      EventResult.Builder r = EventResult.newBuilder().setIndex(i);
      switch (a.status()) {
        case APPENDED ->
            r.setOutcome(EventOutcome.EVENT_OUTCOME_APPENDED)
                .setPartition(a.partition())
                .setOffset(a.offset());
        case DUPLICATE ->
            r.setOutcome(EventOutcome.EVENT_OUTCOME_DUPLICATE)
                .setPartition(a.partition())
                .setOffset(a.offset());
        case IN_FLIGHT ->
            r.setOutcome(EventOutcome.EVENT_OUTCOME_IN_FLIGHT)
                .setPartition(-1)
                .setOffset(-1)
                .setRetryAfterMs(retryAfter);
      }
      b.addResults(r);
    }
    return b.build();
  }
}
