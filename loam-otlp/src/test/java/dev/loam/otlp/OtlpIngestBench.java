package dev.loam.otlp;

import com.google.protobuf.ByteString;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.resource.v1.Resource;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ingest throughput of OTLP/HTTP (protobuf) and OTLP/gRPC on one node with a filesystem store:
 * {@code senders} threads each send export requests of {@code batch} LogRecords back to back, each
 * waiting for its answer (so for the commit). Reports records/s and CPU µs per record: the
 * process's CPU minus the sender threads' own CPU, i.e. the receiver, the node and the JVM, while
 * the senders are its load. Not a JUnit test; run by the command in docs/reference/otlp.md
 * ("Throughput").
 *
 * <p>Arguments: {@code [seconds per transport (10)] [senders (4)] [batch (500)]}.
 */
public final class OtlpIngestBench {
  private OtlpIngestBench() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int senders = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : 500;
    Path dir = Files.createTempDirectory("otlp-bench");
    byte[] body = request(batch).toByteArray();
    System.out.printf(
        "request: %d LogRecords, %d bytes protobuf (%d bytes per record)%n",
        batch, body.length, body.length / batch);
    try (LoamNode node =
            LoamNode.builder()
                .nodeId("bench")
                .dataDir(dir)
                .settings(NodeSettings.defaults())
                .start();
        OtlpReceiver otlp =
            OtlpReceiver.start(node, OtlpSettings.builder().httpPort(0).grpcPort(0).build())) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      URI uri = URI.create("http://127.0.0.1:" + otlp.httpPort() + "/v1/logs");
      Sender httpSend =
          () -> {
            HttpResponse<Void> r =
                http.send(
                    HttpRequest.newBuilder(uri)
                        .header("Content-Type", "application/x-protobuf")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 200) {
              throw new IllegalStateException("status " + r.statusCode());
            }
          };
      ManagedChannel ch =
          NettyChannelBuilder.forAddress("127.0.0.1", otlp.grpcPort()).usePlaintext().build();
      ExportLogsServiceRequest req = ExportLogsServiceRequest.parseFrom(body);
      LogsServiceGrpc.LogsServiceBlockingStub stub = LogsServiceGrpc.newBlockingStub(ch);
      Sender grpcSend = () -> stub.export(req);
      run("warm-up", httpSend, Math.max(2, seconds / 3), senders, batch);
      run("warm-up", grpcSend, Math.max(2, seconds / 3), senders, batch);
      run("OTLP/HTTP protobuf", httpSend, seconds, senders, batch);
      run("OTLP/gRPC", grpcSend, seconds, senders, batch);
      ch.shutdownNow();
    }
  }

  interface Sender {
    void send() throws Exception;
  }

  static void run(String name, Sender sender, int seconds, int senders, int batch)
      throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong requests = new AtomicLong();
    AtomicLong senderCpu = new AtomicLong();
    List<Thread> ts = new ArrayList<>();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    for (int i = 0; i < senders; i++) {
      Thread t =
          new Thread(
              () -> {
                long c0 = threads.getCurrentThreadCpuTime();
                try {
                  while (!stop.get()) {
                    sender.send();
                    requests.incrementAndGet();
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                } finally {
                  senderCpu.addAndGet(threads.getCurrentThreadCpuTime() - c0);
                }
              },
              "bench-sender-" + i);
      t.start();
      ts.add(t);
    }
    Thread.sleep(Duration.ofSeconds(seconds).toMillis());
    stop.set(true);
    for (Thread t : ts) {
      t.join();
    }
    long elapsed = System.nanoTime() - t0;
    long cpu = os.getProcessCpuTime() - cpu0 - senderCpu.get();
    long records = requests.get() * batch;
    System.out.printf(
        "%-20s %,10.0f records/s  %6.2f CPU µs/record (receiver+node; senders %.2f µs/record)"
            + "  %d requests in %.1f s%n",
        name,
        records / (elapsed / 1e9),
        cpu / 1e3 / records,
        senderCpu.get() / 1e3 / records,
        requests.get(),
        elapsed / 1e9);
  }

  static ExportLogsServiceRequest request(int n) {
    List<LogRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] trace = new byte[16];
      byte[] span = new byte[8];
      trace[0] = (byte) i;
      span[0] = (byte) (i >> 8);
      records.add(
          LogRecord.newBuilder()
              .setTimeUnixNano(1_764_590_400_000_000_000L + i)
              .setObservedTimeUnixNano(1_764_590_400_000_500_000L + i)
              .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
              .setSeverityText("INFO")
              .setBody(
                  AnyValue.newBuilder()
                      .setStringValue("GET /api/orders/" + i + " 200 in 12ms user=u-" + (i % 97)))
              .addAttributes(Oracle.string("http.method", "GET"))
              .addAttributes(Oracle.string("http.route", "/api/orders/{id}"))
              .addAttributes(
                  KeyValue.newBuilder()
                      .setKey("http.status_code")
                      .setValue(AnyValue.newBuilder().setIntValue(200)))
              .setTraceId(ByteString.copyFrom(trace))
              .setSpanId(ByteString.copyFrom(span))
              .build());
    }
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(Oracle.string("service.name", "orders"))
                        .addAttributes(Oracle.string("service.version", "1.4.2"))
                        .addAttributes(Oracle.string("host.name", "web-1"))
                        .addAttributes(Oracle.string("telemetry.sdk.language", "java")))
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("com.shop.Orders"))
                        .addAllLogRecords(records)))
        .build();
  }
}
