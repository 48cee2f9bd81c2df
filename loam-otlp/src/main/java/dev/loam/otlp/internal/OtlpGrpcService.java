package dev.loam.otlp.internal;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.rpc.RetryInfo;
import dev.loam.otlp.internal.OtlpRefusal.Reason;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OTLP/gRPC {@code opentelemetry.proto.collector.logs.v1.LogsService/Export}
 * (docs/reference/otlp.md). The method takes the request's bytes as they arrive (gRPC has already
 * removed its gzip message compression and enforced the size limit) and decodes them with the same
 * parser as OTLP/HTTP, so a malformed message is {@code INVALID_ARGUMENT} naming the failure rather
 * than gRPC's own parse error. The API key comes from the {@code authorization} metadata, the
 * target from {@code loam-namespace} and {@code loam-stream}; over quota (and when the node cannot
 * commit) the status carries a {@code google.rpc.RetryInfo}.
 */
public final class OtlpGrpcService {
  /** The service's full name in logs_service.proto. */
  public static final String SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService";

  private static final Logger LOG = LoggerFactory.getLogger(OtlpGrpcService.class);

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> NAMESPACE =
      Metadata.Key.of(OtlpIngest.NAMESPACE_HEADER, Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> STREAM =
      Metadata.Key.of(OtlpIngest.STREAM_HEADER, Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<Metadata> HEADERS = Context.key("loam-otlp-headers");

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  /** Export with the request and response as bytes. */
  public static final MethodDescriptor<byte[], byte[]> EXPORT =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Export"))
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  private OtlpGrpcService() {}

  /** The service definition; decoding and mapping run on {@code executor}. */
  public static ServerServiceDefinition definition(OtlpIngest ingest, Executor executor) {
    ServerServiceDefinition def =
        ServerServiceDefinition.builder(SERVICE)
            .addMethod(
                EXPORT,
                ServerCalls.asyncUnaryCall(
                    (byte[] req, StreamObserver<byte[]> out) -> export(ingest, executor, req, out)))
            .build();
    return ServerInterceptors.intercept(def, new HeadersInterceptor());
  }

  private static void export(
      OtlpIngest ingest, Executor executor, byte[] req, StreamObserver<byte[]> out) {
    Metadata h = HEADERS.get();
    ingest
        .export(
            h == null ? null : h.get(AUTHORIZATION),
            h == null ? null : h.get(NAMESPACE),
            h == null ? null : h.get(STREAM),
            () -> OtlpBodies.parseProtobuf(req),
            executor)
        .whenComplete(
            (resp, err) -> {
              if (err == null) {
                out.onNext(resp.toByteArray());
                out.onCompleted();
                return;
              }
              OtlpRefusal r = OtlpIngest.refusal(err);
              if (r.reason() == Reason.INTERNAL) {
                LOG.warn("OTLP/gRPC export failed: {}", r.getMessage(), err);
              }
              out.onError(toStatus(r));
            });
  }

  /** The gRPC status of a refusal, with a {@code RetryInfo} when the exporter should retry. */
  static RuntimeException toStatus(OtlpRefusal r) {
    com.google.rpc.Status.Builder s =
        com.google.rpc.Status.newBuilder()
            .setCode(Status.Code.valueOf(r.reason().grpcCode()).value())
            .setMessage(r.getMessage() == null ? "" : r.getMessage());
    if (r.retryAfterSeconds() > 0) {
      s.addDetails(
          Any.pack(
              RetryInfo.newBuilder()
                  .setRetryDelay(Duration.newBuilder().setSeconds(r.retryAfterSeconds()))
                  .build()));
    }
    return StatusProto.toStatusRuntimeException(s.build());
  }

  /** Makes the call's metadata visible to the method. */
  private static final class HeadersInterceptor implements ServerInterceptor {
    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
      return Contexts.interceptCall(
          Context.current().withValue(HEADERS, headers), call, headers, next);
    }
  }
}
