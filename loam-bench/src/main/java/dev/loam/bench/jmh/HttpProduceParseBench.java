package dev.loam.bench.jmh;

import dev.loam.http.internal.ProduceBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The HTTP produce route's body parse ({@link ProduceBody#parse}, the server's own entry point)
 * against the JSON-tree parse it replaced: one body of 100 records with 1 KiB random values,
 * base64, a short key and one header each. Time per body in µs; divide by 100 for µs per record.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HttpProduceParseBench {
  static final int RECORDS = 100;
  static final int VALUE_BYTES = 1024;

  private ByteBuf body;

  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    Base64.Encoder b64 = Base64.getEncoder();
    StringBuilder s = new StringBuilder("{\"encoding\":\"base64\",\"records\":[");
    for (int i = 0; i < RECORDS; i++) {
      byte[] v = new byte[VALUE_BYTES];
      r.nextBytes(v);
      if (i > 0) {
        s.append(',');
      }
      s.append("{\"key\":\"")
          .append(b64.encodeToString(("key-" + i).getBytes(StandardCharsets.UTF_8)))
          .append("\",\"value\":\"")
          .append(b64.encodeToString(v))
          .append("\",\"headers\":{\"source\":\"")
          .append(b64.encodeToString("web".getBytes(StandardCharsets.UTF_8)))
          .append("\"},\"timestamp\":")
          .append(1_700_000_000_000L + i)
          .append('}');
    }
    s.append("]}");
    // A heap buffer, as Netty's aggregator hands the route a body it can read without a copy.
    body = Unpooled.wrappedBuffer(s.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** The server's entry point: the streaming parse. */
  @Benchmark
  public ProduceBody parse() {
    return ProduceBody.parse(body);
  }

  /** The JSON-tree parse the server used before (kept as the fallback for refused bodies). */
  @Benchmark
  public ProduceBody parseTree() {
    return ProduceBody.parseTree(body);
  }
}
