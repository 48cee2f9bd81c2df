package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.loam.grpc.client.LoamGrpcClient;
import dev.loam.grpc.v1.AdminServiceGrpc;
import dev.loam.grpc.v1.CreateNamespaceRequest;
import dev.loam.grpc.v1.CreateStreamRequest;
import dev.loam.grpc.v1.FetchRequest;
import dev.loam.grpc.v1.ProduceRequest;
import dev.loam.grpc.v1.Record;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.StreamSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./loam server --grpc-port} serves the loam.v1 gRPC API beside the HTTP API. */
class LoamServerGrpcIT {
  static final Pattern GRPC = Pattern.compile(" grpc=([0-9.]+:[0-9]+)");

  @TempDir Path dir;

  @Test
  void theGrpcPortServesTheApi() throws Exception {
    LoamServerMainIT.Server s =
        LoamServerMainIT.launch(dir.resolve("data"), "--kafka-port", "off", "--grpc-port", "0");
    try {
      Matcher m = GRPC.matcher(s.servingLine());
      assertThat(m.find()).as(s.servingLine()).isTrue();
      try (LoamGrpcClient client =
          LoamGrpcClient.builder().addresses(List.of(m.group(1))).build()) {
        client.call(
            ch ->
                AdminServiceGrpc.newBlockingStub(ch)
                    .createNamespace(
                        CreateNamespaceRequest.newBuilder().setNamespace("g").build()));
        client.call(
            ch ->
                AdminServiceGrpc.newBlockingStub(ch)
                    .createStream(
                        CreateStreamRequest.newBuilder()
                            .setNamespace("g")
                            .setStream("s")
                            .setSpec(StreamSpec.newBuilder().setPartitions(1))
                            .build()));
        long token =
            client
                .call(
                    ch ->
                        StreamServiceGrpc.newBlockingStub(ch)
                            .produce(
                                ProduceRequest.newBuilder()
                                    .setNamespace("g")
                                    .setStream("s")
                                    .addRecords(
                                        Record.newBuilder()
                                            .setValue(ByteString.copyFromUtf8("over grpc")))
                                    .build()))
                .getConsistencyToken();
        var fetched =
            client.call(
                ch ->
                    StreamServiceGrpc.newBlockingStub(ch)
                        .fetch(
                            FetchRequest.newBuilder()
                                .setNamespace("g")
                                .setStream("s")
                                .setPartition(0)
                                .setMinConsistencyToken(token)
                                .build()));
        assertThat(fetched.getRecords(0).getValue().toStringUtf8()).isEqualTo("over grpc");
      }
    } finally {
      LoamServerMainIT.stop(s);
    }
  }
}
