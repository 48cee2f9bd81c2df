package dev.loam.otlp;

import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamDescription;
import dev.loam.error.LoamException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;

/** A node on a temporary directory with an OTLP receiver on ephemeral loopback ports. */
final class OtlpTestSupport implements AutoCloseable {
  static final NodeSettings FAST = NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  final LoamNode node;
  final OtlpReceiver receiver;

  OtlpTestSupport(Path dir) {
    this(dir, b -> b);
  }

  OtlpTestSupport(Path dir, UnaryOperator<OtlpSettings.Builder> tweak) {
    node = LoamNode.builder().nodeId("n1").dataDir(dir).settings(FAST).start();
    receiver =
        OtlpReceiver.start(
            node, tweak.apply(OtlpSettings.builder().httpPort(0).grpcPort(0).ioThreads(2)).build());
  }

  String httpEndpoint() {
    return "http://127.0.0.1:" + receiver.httpPort();
  }

  String grpcEndpoint() {
    return "http://127.0.0.1:" + receiver.grpcPort();
  }

  /** Every record of a stream, partition by partition, in offset order; empty if it is missing. */
  List<FetchedRecord> records(String namespace, String stream) {
    StreamDescription d;
    try {
      d = node.log().describeStream(namespace, stream).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof LoamException le && le.kind() == LoamException.Kind.NOT_FOUND) {
        return List.of();
      }
      throw e;
    }
    List<FetchedRecord> out = new ArrayList<>();
    for (int p = 0; p < d.partitions().size(); p++) {
      long offset = 0;
      while (true) {
        FetchResult r =
            node.log().fetch(namespace, stream, p, offset, 4 << 20, Duration.ZERO).join();
        out.addAll(r.records());
        if (r.records().isEmpty() || r.nextOffset() >= r.highWatermark()) {
          break;
        }
        offset = r.nextOffset();
      }
    }
    return out;
  }

  List<FetchedRecord> records() {
    return records("default", OtlpSettings.DEFAULT_STREAM);
  }

  @Override
  public void close() {
    receiver.close();
    node.close();
  }
}
