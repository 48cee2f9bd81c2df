package dev.loam.bench.load;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The records of one producer thread, the same for the Loam and the Kafka side of a run. Values are
 * {@code recordBytes} long and carry the send time ({@link System#nanoTime} of this JVM, read back
 * by the consumers):
 *
 * <ul>
 *   <li>{@code random}: taken from a 1 MiB random pool at a sliding offset (so they do not compress
 *       to nothing), the first 8 bytes overwritten with the send time;
 *   <li>{@code json}: realistic JSON log lines, one of 8192 distinct lines drawn at start (level,
 *       service, host, route, status, duration, random trace and span ids, user id, a message of
 *       words, padded to the size), the send time as 16 hex digits in their first field {@code
 *       {"t":"…"}}, so they compress as application logs do (zstd about 4–6×).
 * </ul>
 *
 * Keys are null or drawn uniformly from {@code keys} fixed strings. Seeded from the scenario seed
 * and the producer id. Not thread-safe: one per producer thread.
 */
final class RecordGenerator {
  private static final int JSON_LINES = 8192;
  private static final byte[] JSON_PREFIX = "{\"t\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final int HEX_AT = JSON_PREFIX.length;

  private final SplittableRandom rnd;
  private final byte[] pool;
  private final byte[][] keys;
  private final int recordBytes;
  private final boolean json;
  private int poolPos;

  RecordGenerator(BenchConfig c, int producerId) {
    this.rnd = new SplittableRandom(c.seed() * 31 + producerId);
    this.recordBytes = c.recordBytes();
    this.json = c.payload().equals("json") && recordBytes >= 64;
    if (json) {
      pool = new byte[JSON_LINES * recordBytes];
      for (int i = 0; i < JSON_LINES; i++) {
        System.arraycopy(jsonLine(rnd, recordBytes), 0, pool, i * recordBytes, recordBytes);
      }
    } else {
      pool = new byte[1 << 20];
      rnd.nextBytes(pool);
    }
    this.keys = new byte[c.keys()][];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = String.format("key-%08d", k).getBytes(StandardCharsets.US_ASCII);
    }
  }

  private static final String[] LEVELS = {"INFO", "INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"};
  private static final String[] SERVICES = {
    "checkout", "cart", "payments", "search", "catalog", "auth", "shipping", "recommendations"
  };
  private static final String[] ROUTES = {
    "/api/v1/orders",
    "/api/v1/orders/{id}",
    "/api/v1/cart",
    "/api/v1/search",
    "/api/v1/login",
    "/api/v1/items/{id}",
    "/healthz",
    "/api/v1/payments"
  };
  private static final String[] METHODS = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};
  private static final int[] STATUS = {200, 200, 200, 200, 201, 204, 304, 400, 404, 500, 503};
  private static final String[] WORDS = {
    "request", "completed", "order", "accepted", "user", "session", "cache", "miss", "hit",
    "upstream", "timeout", "retry", "payment", "authorized", "item", "added", "to", "cart",
    "inventory", "reserved", "for", "the", "customer", "in", "region", "eu-west-1", "latency",
    "slow", "query", "database", "connection", "pool", "exhausted", "token", "refreshed"
  };

  /** One JSON log line of exactly {@code size} bytes; the "t" field is filled in per send. */
  static byte[] jsonLine(SplittableRandom rnd, int size) {
    StringBuilder b = new StringBuilder(size + 64);
    b.append("{\"t\":\"0000000000000000\",\"level\":\"")
        .append(LEVELS[rnd.nextInt(LEVELS.length)])
        .append("\",\"service\":\"")
        .append(SERVICES[rnd.nextInt(SERVICES.length)])
        .append("\",\"host\":\"node-")
        .append(String.format("%02d", rnd.nextInt(24)))
        .append("\",\"trace_id\":\"")
        .append(String.format("%016x%016x", rnd.nextLong(), rnd.nextLong()))
        .append("\",\"span_id\":\"")
        .append(String.format("%016x", rnd.nextLong()))
        .append("\",\"http\":{\"method\":\"")
        .append(METHODS[rnd.nextInt(METHODS.length)])
        .append("\",\"route\":\"")
        .append(ROUTES[rnd.nextInt(ROUTES.length)])
        .append("\",\"status\":")
        .append(STATUS[rnd.nextInt(STATUS.length)])
        .append("},\"duration_ms\":")
        .append(rnd.nextInt(2_000))
        .append(",\"user_id\":\"u-")
        .append(String.format("%06d", rnd.nextInt(1_000_000)))
        .append("\",\"msg\":\"");
    while (b.length() < size - 2) {
      b.append(WORDS[rnd.nextInt(WORDS.length)]).append(' ');
    }
    b.setLength(size - 2);
    b.append("\"}");
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** A fresh value array carrying {@code sentNanos}. */
  byte[] value(long sentNanos) {
    byte[] v = new byte[recordBytes];
    if (json) {
      System.arraycopy(pool, rnd.nextInt(JSON_LINES) * recordBytes, v, 0, recordBytes);
      String hex = String.format("%016x", sentNanos);
      for (int i = 0; i < 16; i++) {
        v[HEX_AT + i] = (byte) hex.charAt(i);
      }
      return v;
    }
    if (poolPos + v.length > pool.length) {
      poolPos = 0;
    }
    System.arraycopy(pool, poolPos, v, 0, Math.min(v.length, pool.length));
    poolPos += 64;
    ByteBuffer.wrap(v).putLong(0, sentNanos);
    return v;
  }

  /** The next key (shared arrays, not to be modified), or null for null keys. */
  byte[] key() {
    return keys.length == 0 ? null : keys[rnd.nextInt(keys.length)];
  }

  /** The send time a value carries (either payload). */
  static long sentNanos(byte[] value) {
    if (value.length >= HEX_AT + 16 && value[0] == '{' && value[1] == '"' && value[2] == 't') {
      return Long.parseUnsignedLong(new String(value, HEX_AT, 16, StandardCharsets.US_ASCII), 16);
    }
    return ByteBuffer.wrap(value).getLong(0);
  }
}
