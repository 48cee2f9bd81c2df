package dev.loam.storage.gcs;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;

/**
 * A small, in-memory server of the GCS JSON API (the part the {@code google-cloud-storage} client
 * uses for objects), for tests: no faithful GCS emulator can be installed on our build machines.
 *
 * <p>It follows Google's documented semantics where the client depends on them: buckets; objects
 * with generations and metagenerations; multipart and resumable uploads (chunked, with {@code
 * Content-Range} and 308 status replies) honouring {@code ifGenerationMatch} (0 = only if absent;
 * checked when a resumable session starts and again, atomically, when it finalizes) with 412;
 * metadata and media reads with {@code Range} (206, 416 for unsatisfiable ranges, suffix ranges);
 * listings sorted by UTF-8 bytes with {@code prefix}, {@code delimiter}/{@code prefixes}, {@code
 * maxResults} (at most 1000, prefixes count), {@code pageToken}, {@code startOffset} (inclusive)
 * and {@code endOffset} (exclusive); deletes (204, 404); and {@code /batch/storage/v1} with at most
 * 100 parts. Unsupported requests answer 501 so gaps show up instead of being faked.
 *
 * <p>Fault injection: {@link #failNext} answers the next requests with a status (without acting on
 * them), {@link #hangNext} holds them without an answer (before or after acting), until {@link
 * #releaseHangs()} or {@link #close()}.
 */
final class GcsTestServer implements AutoCloseable {

  /** What an injected fault does. */
  enum FaultKind {
    /** Answer with the fault's status; the request has no effect. */
    STATUS,
    /** Hold the request unanswered; it has no effect. */
    HANG_BEFORE,
    /** Act on the request, then hold the answer back (the client sees a timeout). */
    HANG_AFTER
  }

  private record Fault(FaultKind kind, int status, Predicate<String> matches) {}

  private record Response(int status, Map<String, String> headers, byte[] body) {
    static Response json(int status, JsonObject o) {
      return new Response(
          status,
          Map.of("Content-Type", "application/json; charset=UTF-8"),
          o.toString().getBytes(UTF_8));
    }

    static Response empty(int status, Map<String, String> headers) {
      return new Response(status, headers, new byte[0]);
    }
  }

  private static final class Obj {
    final String bucket;
    final String name;
    final byte[] data;
    final long generation;
    final long metageneration;
    final String contentType;
    final Instant created;
    final String md5;
    final String crc32c;

    Obj(String bucket, String name, byte[] data, long generation, String contentType, Instant t) {
      this.bucket = bucket;
      this.name = name;
      this.data = data;
      this.generation = generation;
      this.metageneration = 1;
      this.contentType = contentType;
      this.created = t;
      this.md5 = md5(data);
      this.crc32c = crc32c(data);
    }
  }

  private static final class Session {
    final String bucket;
    final String name;
    final String contentType;
    final Map<String, String> preconditions;
    final ByteArrayOutputStream received = new ByteArrayOutputStream();
    Obj result;
    Response failure;

    Session(String bucket, String name, String contentType, Map<String, String> preconditions) {
      this.bucket = bucket;
      this.name = name;
      this.contentType = contentType;
      this.preconditions = preconditions;
    }
  }

  /** GCS lists in UTF-8 byte order, which is code point order (not UTF-16 order). */
  static final Comparator<String> NAME_ORDER =
      (a, b) -> {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
          int ca = a.codePointAt(i);
          int cb = b.codePointAt(j);
          if (ca != cb) {
            return Integer.compare(ca, cb);
          }
          i += Character.charCount(ca);
          j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
      };

  static final int MAX_BATCH_PARTS = 100;
  static final int MAX_LIST_RESULTS = 1000;
  private static final DateTimeFormatter RFC3339 =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final HttpServer server;
  private final ExecutorService pool;
  private final Object lock = new Object();
  private final Map<String, NavigableMap<String, Obj>> buckets = new HashMap<>();
  private final Map<String, Instant> bucketCreated = new HashMap<>();
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final AtomicLong generations;
  private final AtomicLong uploadIds = new AtomicLong();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private final List<String> log = new CopyOnWriteArrayList<>();
  private volatile boolean logRequests = Boolean.getBoolean("gcs.test.log");
  private volatile CountDownLatch hangRelease = new CountDownLatch(1);
  private final AtomicLong requests = new AtomicLong();

  private GcsTestServer(HttpServer server, ExecutorService pool) {
    this.server = server;
    this.pool = pool;
    // Real generations are microsecond timestamps; we only need them unique and increasing.
    this.generations = new AtomicLong(Instant.now().toEpochMilli() * 1000);
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static GcsTestServer start() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    ExecutorService pool =
        Executors.newFixedThreadPool(
            64,
            r -> {
              Thread t = new Thread(r, "gcs-test-server");
              t.setDaemon(true);
              return t;
            });
    GcsTestServer s = new GcsTestServer(server, pool);
    server.createContext("/", s::handle);
    server.setExecutor(pool);
    server.start();
    return s;
  }

  /** {@code http://127.0.0.1:PORT}, for {@code host=} and {@code StorageOptions.setHost}. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Creates a bucket directly (no HTTP). */
  void createBucket(String name) {
    synchronized (lock) {
      buckets.putIfAbsent(name, new TreeMap<>(NAME_ORDER));
      bucketCreated.putIfAbsent(name, Instant.now());
    }
  }

  /** The current bytes of an object, read directly. */
  Optional<byte[]> object(String bucket, String name) {
    synchronized (lock) {
      NavigableMap<String, Obj> b = buckets.get(bucket);
      Obj o = b == null ? null : b.get(name);
      return Optional.ofNullable(o).map(x -> x.data.clone());
    }
  }

  /** The next {@code n} requests (any kind) answer {@code status} and have no effect. */
  void failNext(int n, int status) {
    addFaults(n, FaultKind.STATUS, status, any -> true);
  }

  /**
   * The next {@code n} requests whose {@code "METHOD path?query"} line matches get {@code kind}.
   */
  void faultNext(int n, FaultKind kind, int status, Predicate<String> requestLine) {
    addFaults(n, kind, status, requestLine);
  }

  /** The next {@code n} requests hang: unanswered until {@link #releaseHangs()}. */
  void hangNext(int n, boolean afterApplying) {
    addFaults(n, afterApplying ? FaultKind.HANG_AFTER : FaultKind.HANG_BEFORE, 0, any -> true);
  }

  /** Lets every hung request go (they then drop their connection without an answer). */
  void releaseHangs() {
    CountDownLatch old = hangRelease;
    hangRelease = new CountDownLatch(1);
    old.countDown();
  }

  /** Drops every fault not yet used. */
  void clearFaults() {
    synchronized (faults) {
      faults.clear();
    }
  }

  private void addFaults(int n, FaultKind kind, int status, Predicate<String> matches) {
    synchronized (faults) {
      for (int i = 0; i < n; i++) {
        faults.add(new Fault(kind, status, matches));
      }
    }
  }

  private Optional<Fault> takeFault(String requestLine) {
    synchronized (faults) {
      for (var it = faults.iterator(); it.hasNext(); ) {
        Fault f = it.next();
        if (f.matches.test(requestLine)) {
          it.remove();
          return Optional.of(f);
        }
      }
      return Optional.empty();
    }
  }

  /** Every request line seen so far ({@code "METHOD rawPath?rawQuery"}), batch parts included. */
  List<String> requestLog() {
    return List.copyOf(log);
  }

  void logRequests(boolean on) {
    logRequests = on;
  }

  long requestCount() {
    return requests.get();
  }

  @Override
  public void close() {
    hangRelease.countDown();
    server.stop(0);
    pool.shutdownNow();
  }

  // ---------------------------------------------------------------------------------------------
  // dispatch

  private record Request(
      String method, String rawPath, Map<String, String> query, Headers headers, byte[] body) {
    String header(String name) {
      return headers.getFirst(name);
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      requests.incrementAndGet();
      byte[] body = ex.getRequestBody().readAllBytes();
      String rawQuery = ex.getRequestURI().getRawQuery();
      String line =
          ex.getRequestMethod()
              + " "
              + ex.getRequestURI().getRawPath()
              + (rawQuery == null ? "" : "?" + rawQuery);
      record(line, ex.getRequestHeaders(), body.length);
      Optional<Fault> fault = takeFault(line);
      if (fault.isPresent() && fault.get().kind == FaultKind.HANG_BEFORE) {
        hang();
        return;
      }
      if (fault.isPresent() && fault.get().kind == FaultKind.STATUS) {
        send(ex, error(fault.get().status, "injected fault", "backendError"));
        return;
      }
      if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
        body = gunzip(body);
      }
      String method = ex.getRequestMethod();
      Map<String, String> query = parseQuery(rawQuery);
      String override = ex.getRequestHeaders().getFirst("X-HTTP-Method-Override");
      if (method.equals("POST") && override != null) {
        // google-http-client turns requests with URLs over 2 KiB into POSTs with the real method
        // in this header and the query in a form-encoded body; GCS accepts that.
        method = override.toUpperCase(Locale.ROOT);
        String ct = ex.getRequestHeaders().getFirst("Content-Type");
        if (ct != null
            && ct.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
          query.putAll(parseQuery(new String(body, UTF_8)));
          body = new byte[0];
        }
      }
      Request req =
          new Request(method, ex.getRequestURI().getRawPath(), query, ex.getRequestHeaders(), body);
      Response resp;
      try {
        resp = route(req, hostOf(ex));
      } catch (BadRequest e) {
        resp = error(400, e.getMessage(), "invalid");
      } catch (RuntimeException e) {
        resp = error(500, "test server bug: " + e, "backendError");
      }
      if (fault.isPresent() && fault.get().kind == FaultKind.HANG_AFTER) {
        hang();
        return;
      }
      send(ex, resp);
    }
  }

  private void record(String line, Headers headers, int bodyBytes) {
    log.add(line);
    if (logRequests) {
      StringBuilder sb = new StringBuilder("[gcs-test-server] ").append(line);
      headers.forEach(
          (k, v) -> {
            if (!k.equalsIgnoreCase("Authorization")) {
              sb.append("\n    ").append(k).append(": ").append(v);
            }
          });
      sb.append("\n    (body ").append(bodyBytes).append(" bytes)");
      System.err.println(sb);
    }
  }

  private void hang() {
    try {
      hangRelease.await(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String hostOf(HttpExchange ex) {
    String host = ex.getRequestHeaders().getFirst("Host");
    return "http://" + (host != null ? host : "127.0.0.1:" + ex.getLocalAddress().getPort());
  }

  private static void send(HttpExchange ex, Response r) throws IOException {
    r.headers.forEach((k, v) -> ex.getResponseHeaders().set(k, v));
    boolean noBody = r.body.length == 0;
    ex.sendResponseHeaders(r.status, noBody ? -1 : r.body.length);
    if (!noBody) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(r.body);
      }
    }
  }

  private Response route(Request req, String self) {
    String p = req.rawPath;
    if (p.equals("/batch/storage/v1") && req.method.equals("POST")) {
      return batch(req, self);
    }
    if (p.equals("/storage/v1/b")) {
      if (req.method.equals("POST")) {
        return createBucketRequest(req);
      }
      return notImplemented(req);
    }
    String[] upload = match(p, "/upload/storage/v1/b/", "/o");
    if (upload != null && upload[1].isEmpty()) {
      String bucket = upload[0];
      String type = req.query.getOrDefault("uploadType", "");
      if (req.method.equals("POST") && type.equals("multipart")) {
        return multipartUpload(bucket, req);
      }
      if (req.method.equals("POST") && type.equals("media")) {
        return mediaUpload(bucket, req);
      }
      if (req.method.equals("POST") && type.equals("resumable")) {
        return startResumable(bucket, req, self);
      }
      if (req.method.equals("PUT") && type.equals("resumable")) {
        return resumableChunk(req);
      }
      return notImplemented(req);
    }
    String[] download = match(p, "/download/storage/v1/b/", "/o/");
    if (download != null && req.method.equals("GET")) {
      return media(download[0], decodePath(download[1]), req);
    }
    String[] obj = match(p, "/storage/v1/b/", "/o/");
    if (obj != null) {
      String name = decodePath(obj[1]);
      switch (req.method) {
        case "GET":
          return "media".equals(req.query.get("alt"))
              ? media(obj[0], name, req)
              : metadata(obj[0], name, req);
        case "DELETE":
          return deleteObject(obj[0], name, req);
        default:
          return notImplemented(req);
      }
    }
    String[] list = match(p, "/storage/v1/b/", "/o");
    if (list != null && list[1].isEmpty() && req.method.equals("GET")) {
      return list(list[0], req);
    }
    String[] bucket = match(p, "/storage/v1/b/", null);
    if (bucket != null && req.method.equals("GET")) {
      synchronized (lock) {
        if (!buckets.containsKey(bucket[0])) {
          return error(404, "The specified bucket does not exist.", "notFound");
        }
        return Response.json(200, bucketJson(bucket[0]));
      }
    }
    return notImplemented(req);
  }

  /**
   * Splits {@code path} as {@code start + BUCKET + mid + REST}: returns {BUCKET, REST}, or null.
   * With {@code mid == null} the rest of the path must be the bucket.
   */
  private static String[] match(String path, String start, String mid) {
    if (!path.startsWith(start)) {
      return null;
    }
    String rest = path.substring(start.length());
    if (mid == null) {
      return rest.isEmpty() || rest.contains("/") ? null : new String[] {decodePath(rest), ""};
    }
    int i = rest.indexOf('/');
    if (i <= 0) {
      return null;
    }
    String bucket = rest.substring(0, i);
    String after = rest.substring(i);
    if (mid.endsWith("/")) {
      if (!after.startsWith(mid) || after.length() == mid.length()) {
        return null;
      }
      return new String[] {decodePath(bucket), after.substring(mid.length())};
    }
    return after.equals(mid) ? new String[] {decodePath(bucket), ""} : null;
  }

  private static Response notImplemented(Request req) {
    return error(
        501,
        "not implemented by the test server: " + req.method + " " + req.rawPath,
        "notImplemented");
  }

  // ---------------------------------------------------------------------------------------------
  // buckets

  private Response createBucketRequest(Request req) {
    if (req.query.get("project") == null) {
      return error(400, "Required parameter: project", "required");
    }
    JsonObject in = parseJson(req.body);
    String name = in.has("name") ? in.get("name").getAsString() : null;
    if (name == null || !name.matches("[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]")) {
      return error(400, "Invalid bucket name: " + name, "invalid");
    }
    synchronized (lock) {
      if (buckets.containsKey(name)) {
        return error(
            409,
            "Your previous request to create the named bucket succeeded and you already own it.",
            "conflict");
      }
      createBucket(name);
      return Response.json(200, bucketJson(name));
    }
  }

  private JsonObject bucketJson(String name) {
    JsonObject o = new JsonObject();
    o.addProperty("kind", "storage#bucket");
    o.addProperty("id", name);
    o.addProperty("name", name);
    o.addProperty("selfLink", "https://www.googleapis.com/storage/v1/b/" + name);
    o.addProperty("projectNumber", "123456789");
    o.addProperty("metageneration", "1");
    o.addProperty("location", "US");
    o.addProperty("storageClass", "STANDARD");
    o.addProperty("etag", "CAE=");
    String t = RFC3339.format(bucketCreated.getOrDefault(name, Instant.EPOCH));
    o.addProperty("timeCreated", t);
    o.addProperty("updated", t);
    return o;
  }

  // ---------------------------------------------------------------------------------------------
  // uploads

  private Response multipartUpload(String bucket, Request req) {
    String ct = req.header("Content-Type");
    String boundary = boundaryOf(ct);
    if (ct == null
        || !ct.toLowerCase(Locale.ROOT).startsWith("multipart/related")
        || boundary == null) {
      return error(
          400, "multipart upload needs Content-Type multipart/related with a boundary", "invalid");
    }
    List<Part> parts = parseMultipart(req.body, boundary);
    if (parts.size() != 2) {
      return error(400, "multipart upload needs exactly 2 parts, got " + parts.size(), "invalid");
    }
    JsonObject meta = parseJson(parts.get(0).body);
    byte[] data = parts.get(1).body;
    String name = meta.has("name") ? meta.get("name").getAsString() : req.query.get("name");
    String contentType =
        meta.has("contentType")
            ? meta.get("contentType").getAsString()
            : Optional.ofNullable(parts.get(1).headers.get("content-type"))
                .orElse("application/octet-stream");
    Response bad = checkHashes(meta, data);
    if (bad != null) {
      return bad;
    }
    return store(bucket, name, data, contentType, req.query);
  }

  private Response mediaUpload(String bucket, Request req) {
    String ct = Optional.ofNullable(req.header("Content-Type")).orElse("application/octet-stream");
    return store(bucket, req.query.get("name"), req.body, ct, req.query);
  }

  /** Stores an object if the preconditions hold, atomically. */
  private Response store(
      String bucket, String name, byte[] data, String contentType, Map<String, String> pre) {
    Response bad = checkName(name);
    if (bad != null) {
      return bad;
    }
    synchronized (lock) {
      NavigableMap<String, Obj> b = buckets.get(bucket);
      if (b == null) {
        return error(404, "The specified bucket does not exist.", "notFound");
      }
      Response failed = checkPreconditions(b.get(name), pre);
      if (failed != null) {
        return failed;
      }
      Obj o = new Obj(bucket, name, data.clone(), nextGeneration(), contentType, Instant.now());
      b.put(name, o);
      return Response.json(200, objectJson(o));
    }
  }

  private long nextGeneration() {
    long now = Instant.now().toEpochMilli() * 1000;
    return generations.updateAndGet(g -> Math.max(g + 1, now));
  }

  /** {@code ifGenerationMatch} (0 = no live object) and {@code ifGenerationNotMatch}. */
  private static Response checkPreconditions(Obj current, Map<String, String> q) {
    String match = q.get("ifGenerationMatch");
    if (match != null) {
      long want = Long.parseLong(match);
      long have = current == null ? 0 : current.generation;
      if (want != have) {
        return error(
            412,
            "At least one of the pre-conditions you specified did not hold.",
            "conditionNotMet");
      }
    }
    String notMatch = q.get("ifGenerationNotMatch");
    if (notMatch != null) {
      long have = current == null ? 0 : current.generation;
      if (Long.parseLong(notMatch) == have) {
        return error(
            412,
            "At least one of the pre-conditions you specified did not hold.",
            "conditionNotMet");
      }
    }
    String metaMatch = q.get("ifMetagenerationMatch");
    if (metaMatch != null
        && (current == null || current.metageneration != Long.parseLong(metaMatch))) {
      return error(
          412, "At least one of the pre-conditions you specified did not hold.", "conditionNotMet");
    }
    return null;
  }

  private static Map<String, String> preconditionsOf(Map<String, String> q) {
    Map<String, String> pre = new HashMap<>();
    for (String k : List.of("ifGenerationMatch", "ifGenerationNotMatch", "ifMetagenerationMatch")) {
      if (q.containsKey(k)) {
        pre.put(k, q.get(k));
      }
    }
    return pre;
  }

  private Response startResumable(String bucket, Request req, String self) {
    JsonObject meta = req.body.length == 0 ? new JsonObject() : parseJson(req.body);
    String name = meta.has("name") ? meta.get("name").getAsString() : req.query.get("name");
    Response bad = checkName(name);
    if (bad != null) {
      return bad;
    }
    String ct =
        meta.has("contentType")
            ? meta.get("contentType").getAsString()
            : Optional.ofNullable(req.header("X-Upload-Content-Type"))
                .orElse("application/octet-stream");
    synchronized (lock) {
      NavigableMap<String, Obj> b = buckets.get(bucket);
      if (b == null) {
        return error(404, "The specified bucket does not exist.", "notFound");
      }
      // GCS checks the preconditions when the session starts, and again when it finalizes.
      Response failed = checkPreconditions(b.get(name), req.query);
      if (failed != null) {
        return failed;
      }
    }
    String id = "upload-" + uploadIds.incrementAndGet();
    sessions.put(id, new Session(bucket, name, ct, preconditionsOf(req.query)));
    String location =
        self
            + "/upload/storage/v1/b/"
            + encodePath(bucket)
            + "/o?uploadType=resumable&upload_id="
            + id;
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Location", location);
    h.put("X-GUploader-UploadID", id);
    return Response.empty(200, h);
  }

  /**
   * One {@code PUT} to a session URI. {@code Content-Range: bytes A-B/T} carries bytes A..B of an
   * upload of T bytes ({@code *} while unknown); {@code bytes * /T} with no body asks for the state
   * (and finalizes if T bytes are in). Replies 308 with {@code Range: bytes=0-N} while incomplete,
   * and the object when the last byte arrived.
   */
  private Response resumableChunk(Request req) {
    String id = req.query.get("upload_id");
    Session s = id == null ? null : sessions.get(id);
    if (s == null) {
      return error(404, "No such upload session: " + id, "notFound");
    }
    synchronized (s) {
      if (s.result != null) {
        return Response.json(200, objectJson(s.result));
      }
      if (s.failure != null) {
        return s.failure;
      }
      String range = req.header("Content-Range");
      long total = -1;
      long start = -1;
      long persisted = s.received.size();
      if (range == null) {
        // The whole upload in one request.
        start = 0;
        total = req.body.length;
      } else {
        String r = range.trim();
        if (!r.startsWith("bytes ")) {
          return error(400, "bad Content-Range " + range, "invalid");
        }
        r = r.substring(6);
        int slash = r.indexOf('/');
        if (slash < 0) {
          return error(400, "bad Content-Range " + range, "invalid");
        }
        String span = r.substring(0, slash);
        String tot = r.substring(slash + 1);
        total = tot.equals("*") ? -1 : Long.parseLong(tot);
        if (!span.equals("*")) {
          int dash = span.indexOf('-');
          start = Long.parseLong(span.substring(0, dash));
          long end = Long.parseLong(span.substring(dash + 1));
          if (end - start + 1 != req.body.length) {
            return error(
                400,
                "Content-Range " + range + " does not match " + req.body.length + " body bytes",
                "invalid");
          }
        } else if (req.body.length != 0) {
          return error(400, "Content-Range bytes */T with a body", "invalid");
        }
      }
      if (start >= 0) {
        if (start > persisted) {
          return error(
              400,
              "chunk starts at " + start + " but only " + persisted + " bytes are persisted",
              "invalid");
        }
        // Bytes already persisted (a retried chunk) are ignored.
        int skip = (int) (persisted - start);
        if (skip < req.body.length) {
          s.received.write(req.body, skip, req.body.length - skip);
        }
      }
      long have = s.received.size();
      if (total >= 0 && have > total) {
        return error(400, "received " + have + " bytes of an upload of " + total, "invalid");
      }
      if (total >= 0 && have == total) {
        return finalizeSession(s);
      }
      Map<String, String> h = new LinkedHashMap<>();
      if (have > 0) {
        h.put("Range", "bytes=0-" + (have - 1));
      }
      return Response.empty(308, h);
    }
  }

  private Response finalizeSession(Session s) {
    synchronized (lock) {
      NavigableMap<String, Obj> b = buckets.get(s.bucket);
      if (b == null) {
        s.failure = error(404, "The specified bucket does not exist.", "notFound");
        return s.failure;
      }
      Response failed = checkPreconditions(b.get(s.name), s.preconditions);
      if (failed != null) {
        s.failure = failed;
        return failed;
      }
      Obj o =
          new Obj(
              s.bucket,
              s.name,
              s.received.toByteArray(),
              nextGeneration(),
              s.contentType,
              Instant.now());
      b.put(s.name, o);
      s.result = o;
      return Response.json(200, objectJson(o));
    }
  }

  private static Response checkHashes(JsonObject meta, byte[] data) {
    if (meta.has("crc32c") && !meta.get("crc32c").getAsString().equals(crc32c(data))) {
      return error(400, "Provided CRC32C does not match the content", "invalid");
    }
    if (meta.has("md5Hash") && !meta.get("md5Hash").getAsString().equals(md5(data))) {
      return error(400, "Provided MD5 hash does not match the content", "invalid");
    }
    return null;
  }

  /** GCS object names: 1..1024 UTF-8 bytes, no CR or LF, not {@code .} or {@code ..}. */
  private static Response checkName(String name) {
    if (name == null || name.isEmpty()) {
      return error(400, "Required: object name", "required");
    }
    if (name.getBytes(UTF_8).length > 1024
        || name.indexOf('\r') >= 0
        || name.indexOf('\n') >= 0
        || name.equals(".")
        || name.equals("..")) {
      return error(400, "The specified object name is not valid.", "invalid");
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // reads

  private Obj find(String bucket, String name, Map<String, String> q) {
    synchronized (lock) {
      NavigableMap<String, Obj> b = buckets.get(bucket);
      Obj o = b == null ? null : b.get(name);
      String gen = q.get("generation");
      if (o != null && gen != null && o.generation != Long.parseLong(gen)) {
        return null; // no versioning: only the live generation exists
      }
      return o;
    }
  }

  private Response metadata(String bucket, String name, Request req) {
    Obj o = find(bucket, name, req.query);
    if (o == null) {
      return missing(bucket, name);
    }
    Response failed = checkPreconditions(o, req.query);
    return failed != null ? failed : Response.json(200, objectJson(o));
  }

  private Response missing(String bucket, String name) {
    synchronized (lock) {
      if (!buckets.containsKey(bucket)) {
        return error(404, "The specified bucket does not exist.", "notFound");
      }
    }
    return error(404, "No such object: " + bucket + "/" + name, "notFound");
  }

  /** Media read with RFC 7233 single ranges ({@code a-b}, {@code a-}, {@code -n}). */
  private Response media(String bucket, String name, Request req) {
    Obj o = find(bucket, name, req.query);
    if (o == null) {
      return missing(bucket, name);
    }
    Response failed = checkPreconditions(o, req.query);
    if (failed != null) {
      return failed;
    }
    long size = o.data.length;
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", o.contentType);
    h.put("ETag", etag(o));
    h.put("Accept-Ranges", "bytes");
    h.put("x-goog-generation", Long.toString(o.generation));
    h.put("x-goog-metageneration", Long.toString(o.metageneration));
    h.put("x-goog-stored-content-length", Long.toString(size));
    h.put("x-goog-stored-content-encoding", "identity");
    h.put("x-goog-storage-class", "STANDARD");
    h.put("x-goog-hash", "crc32c=" + o.crc32c + ",md5=" + o.md5);
    h.put(
        "Last-Modified",
        DateTimeFormatter.RFC_1123_DATE_TIME.format(o.created.atOffset(ZoneOffset.UTC)));
    String range = req.header("Range");
    long[] r = range == null ? null : parseRange(range);
    if (r == null) {
      return new Response(200, h, o.data.clone());
    }
    long first;
    long last;
    if (r[0] < 0) { // suffix: -n
      long n = r[1];
      if (n == 0 || size == 0) {
        return unsatisfiable(size);
      }
      first = Math.max(0, size - n);
      last = size - 1;
    } else {
      first = r[0];
      if (first >= size) {
        return unsatisfiable(size);
      }
      last = r[1] < 0 ? size - 1 : Math.min(r[1], size - 1);
    }
    h.put("Content-Range", "bytes " + first + "-" + last + "/" + size);
    byte[] part = new byte[(int) (last - first + 1)];
    System.arraycopy(o.data, (int) first, part, 0, part.length);
    return new Response(206, h, part);
  }

  private static Response unsatisfiable(long size) {
    Response e =
        error(416, "The requested range cannot be satisfied.", "requestedRangeNotSatisfiable");
    Map<String, String> h = new LinkedHashMap<>(e.headers);
    h.put("Content-Range", "bytes */" + size);
    return new Response(416, h, e.body);
  }

  /**
   * {@code {first, last}} with last = -1 for {@code a-}; {@code {-1, n}} for {@code -n}; null for a
   * header to ignore (malformed or multiple ranges: served whole, as RFC 7233 allows).
   */
  static long[] parseRange(String header) {
    String h = header.trim();
    if (!h.startsWith("bytes=") || h.contains(",")) {
      return null;
    }
    String spec = h.substring(6).trim();
    int dash = spec.indexOf('-');
    if (dash < 0) {
      return null;
    }
    try {
      if (dash == 0) {
        return new long[] {-1, Long.parseLong(spec.substring(1))};
      }
      long first = Long.parseLong(spec.substring(0, dash));
      String tail = spec.substring(dash + 1);
      long last = tail.isEmpty() ? -1 : Long.parseLong(tail);
      if (first < 0 || (last >= 0 && last < first)) {
        return null;
      }
      return new long[] {first, last};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // list

  private Response list(String bucket, Request req) {
    Map<String, String> q = req.query;
    String prefix = q.getOrDefault("prefix", "");
    String delimiter = q.get("delimiter");
    String startOffset = q.get("startOffset");
    String endOffset = q.get("endOffset");
    int max = MAX_LIST_RESULTS;
    if (q.containsKey("maxResults")) {
      long m = Long.parseLong(q.get("maxResults"));
      if (m < 0) {
        return error(400, "Invalid maxResults " + m, "invalid");
      }
      max = (int) Math.min(m == 0 ? MAX_LIST_RESULTS : m, MAX_LIST_RESULTS);
    }
    if (q.containsKey("matchGlob")) {
      return error(501, "matchGlob is not implemented by the test server", "notImplemented");
    }
    // Page token: "o" + last object name or "p" + last prefix of the previous page.
    String after = null;
    boolean afterIsPrefix = false;
    String token = q.get("pageToken");
    if (token != null && !token.isEmpty()) {
      String t;
      try {
        t = new String(Base64.getUrlDecoder().decode(token), UTF_8);
      } catch (IllegalArgumentException e) {
        return error(400, "Invalid page token", "invalid");
      }
      afterIsPrefix = t.startsWith("p");
      after = t.substring(1);
    }
    List<Obj> items = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    String lastEntry = null;
    boolean lastIsPrefix = false;
    boolean more = false;
    synchronized (lock) {
      NavigableMap<String, Obj> b = buckets.get(bucket);
      if (b == null) {
        return error(404, "The specified bucket does not exist.", "notFound");
      }
      NavigableMap<String, Obj> view = b;
      String from = prefix;
      if (startOffset != null && NAME_ORDER.compare(startOffset, from) > 0) {
        from = startOffset;
      }
      view = view.tailMap(from, true);
      String currentPrefix = null;
      for (Map.Entry<String, Obj> e : view.entrySet()) {
        String name = e.getKey();
        if (!name.startsWith(prefix)) {
          if (NAME_ORDER.compare(name, prefix) > 0) {
            break; // sorted: nothing further can match
          }
          continue;
        }
        if (endOffset != null && NAME_ORDER.compare(name, endOffset) >= 0) {
          break;
        }
        if (after != null) {
          if (NAME_ORDER.compare(name, after) <= 0) {
            continue;
          }
          if (afterIsPrefix && name.startsWith(after)) {
            continue;
          }
        }
        String entryPrefix = null;
        if (delimiter != null && !delimiter.isEmpty()) {
          int i = name.indexOf(delimiter, prefix.length());
          if (i >= 0) {
            entryPrefix = name.substring(0, i + delimiter.length());
          }
        }
        if (entryPrefix != null && entryPrefix.equals(currentPrefix)) {
          continue; // already reported on this page
        }
        if (items.size() + prefixes.size() == max) {
          more = true;
          break;
        }
        if (entryPrefix != null) {
          prefixes.add(entryPrefix);
          currentPrefix = entryPrefix;
          lastEntry = entryPrefix;
          lastIsPrefix = true;
        } else {
          items.add(e.getValue());
          lastEntry = name;
          lastIsPrefix = false;
        }
      }
    }
    JsonObject out = new JsonObject();
    out.addProperty("kind", "storage#objects");
    if (!items.isEmpty()) {
      JsonArray arr = new JsonArray();
      items.forEach(o -> arr.add(objectJson(o)));
      out.add("items", arr);
    }
    if (!prefixes.isEmpty()) {
      JsonArray arr = new JsonArray();
      prefixes.forEach(arr::add);
      out.add("prefixes", arr);
    }
    if (more) {
      out.addProperty(
          "nextPageToken",
          Base64.getUrlEncoder()
              .withoutPadding()
              .encodeToString(((lastIsPrefix ? "p" : "o") + lastEntry).getBytes(UTF_8)));
    }
    return Response.json(200, out);
  }

  // ---------------------------------------------------------------------------------------------
  // delete and batch

  private Response deleteObject(String bucket, String name, Request req) {
    synchronized (lock) {
      NavigableMap<String, Obj> b = buckets.get(bucket);
      if (b == null) {
        return error(404, "The specified bucket does not exist.", "notFound");
      }
      Obj o = b.get(name);
      String gen = req.query.get("generation");
      if (o == null || (gen != null && o.generation != Long.parseLong(gen))) {
        return error(404, "No such object: " + bucket + "/" + name, "notFound");
      }
      Response failed = checkPreconditions(o, req.query);
      if (failed != null) {
        return failed;
      }
      b.remove(name);
      return Response.empty(204, Map.of());
    }
  }

  /**
   * {@code multipart/mixed}, each part an {@code application/http} request; the answer is a {@code
   * multipart/mixed} of {@code application/http} responses in the same order, each with {@code
   * Content-ID: response-<id>}.
   */
  private Response batch(Request req, String self) {
    String boundary = boundaryOf(req.header("Content-Type"));
    if (boundary == null) {
      return error(400, "batch needs multipart/mixed with a boundary", "invalid");
    }
    List<Part> parts = parseMultipart(req.body, boundary);
    if (parts.size() > MAX_BATCH_PARTS) {
      return error(
          400, "Too many requests in batch: " + parts.size() + " > " + MAX_BATCH_PARTS, "invalid");
    }
    String out = "batch_" + Long.toHexString(System.nanoTime());
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (Part part : parts) {
      Request sub = parseHttpRequest(part.body);
      String line = sub.method + " " + sub.rawPath + (sub.query.isEmpty() ? "" : "?…");
      log.add("  batch part: " + line);
      if (logRequests) {
        System.err.println("[gcs-test-server]   batch part: " + line);
      }
      Optional<Fault> fault = takeFault("batch-part " + sub.method + " " + sub.rawPath);
      Response r;
      if (fault.isPresent() && fault.get().kind == FaultKind.STATUS) {
        r = error(fault.get().status, "injected fault", "backendError");
      } else {
        try {
          r = route(sub, self);
        } catch (BadRequest e) {
          r = error(400, e.getMessage(), "invalid");
        }
      }
      String id = part.headers.getOrDefault("content-id", "");
      if (id.startsWith("<") && id.endsWith(">")) {
        id = id.substring(1, id.length() - 1);
      }
      StringBuilder sb = new StringBuilder();
      sb.append("--").append(out).append("\r\n");
      sb.append("Content-Type: application/http\r\n");
      sb.append("Content-ID: <response-").append(id).append(">\r\n\r\n");
      sb.append("HTTP/1.1 ").append(r.status).append(' ').append(reason(r.status)).append("\r\n");
      r.headers.forEach((k, v) -> sb.append(k).append(": ").append(v).append("\r\n"));
      sb.append("Content-Length: ").append(r.body.length).append("\r\n\r\n");
      body.writeBytes(sb.toString().getBytes(UTF_8));
      body.writeBytes(r.body);
      body.writeBytes("\r\n".getBytes(UTF_8));
    }
    body.writeBytes(("--" + out + "--\r\n").getBytes(UTF_8));
    return new Response(
        200, Map.of("Content-Type", "multipart/mixed; boundary=" + out), body.toByteArray());
  }

  private static Request parseHttpRequest(byte[] raw) {
    int headerEnd = indexOf(raw, "\r\n\r\n".getBytes(ISO_8859_1), 0);
    String head = new String(raw, 0, headerEnd < 0 ? raw.length : headerEnd, UTF_8);
    String[] lines = head.split("\r\n");
    String[] requestLine = lines[0].trim().split(" ");
    if (requestLine.length < 2) {
      throw new BadRequest("bad batch part request line: " + lines[0]);
    }
    String target = requestLine[1];
    if (target.startsWith("http://") || target.startsWith("https://")) {
      int slash = target.indexOf('/', target.indexOf("//") + 2);
      target = slash < 0 ? "/" : target.substring(slash);
    }
    int qm = target.indexOf('?');
    String path = qm < 0 ? target : target.substring(0, qm);
    String query = qm < 0 ? null : target.substring(qm + 1);
    Headers h = new Headers();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        h.add(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
      }
    }
    byte[] body = new byte[0];
    if (headerEnd >= 0 && headerEnd + 4 < raw.length) {
      body = java.util.Arrays.copyOfRange(raw, headerEnd + 4, raw.length);
    }
    return new Request(requestLine[0], path, parseQuery(query), h, body);
  }

  private static String reason(int status) {
    switch (status) {
      case 200:
        return "OK";
      case 204:
        return "No Content";
      case 400:
        return "Bad Request";
      case 404:
        return "Not Found";
      case 412:
        return "Precondition Failed";
      case 429:
        return "Too Many Requests";
      case 500:
        return "Internal Server Error";
      case 503:
        return "Service Unavailable";
      default:
        return "Status";
    }
  }

  // ---------------------------------------------------------------------------------------------
  // JSON

  private JsonObject objectJson(Obj o) {
    JsonObject j = new JsonObject();
    j.addProperty("kind", "storage#object");
    j.addProperty("id", o.bucket + "/" + o.name + "/" + o.generation);
    j.addProperty(
        "selfLink",
        "https://www.googleapis.com/storage/v1/b/"
            + encodePath(o.bucket)
            + "/o/"
            + encodePath(o.name));
    j.addProperty(
        "mediaLink",
        "https://storage.googleapis.com/download/storage/v1/b/"
            + encodePath(o.bucket)
            + "/o/"
            + encodePath(o.name)
            + "?generation="
            + o.generation
            + "&alt=media");
    j.addProperty("name", o.name);
    j.addProperty("bucket", o.bucket);
    j.addProperty("generation", Long.toString(o.generation));
    j.addProperty("metageneration", Long.toString(o.metageneration));
    j.addProperty("contentType", o.contentType);
    j.addProperty("storageClass", "STANDARD");
    j.addProperty("size", Long.toString(o.data.length));
    j.addProperty("md5Hash", o.md5);
    j.addProperty("crc32c", o.crc32c);
    j.addProperty("etag", etag(o));
    String t = RFC3339.format(o.created.truncatedTo(ChronoUnit.MILLIS));
    j.addProperty("timeCreated", t);
    j.addProperty("updated", t);
    j.addProperty("timeStorageClassUpdated", t);
    return j;
  }

  private static String etag(Obj o) {
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(8).putLong(o.generation).array());
  }

  private static Response error(int status, String message, String reason) {
    JsonObject e = new JsonObject();
    e.addProperty("code", status);
    e.addProperty("message", message);
    JsonObject item = new JsonObject();
    item.addProperty("message", message);
    item.addProperty("domain", "global");
    item.addProperty("reason", reason);
    JsonArray errors = new JsonArray();
    errors.add(item);
    e.add("errors", errors);
    JsonObject root = new JsonObject();
    root.add("error", e);
    return Response.json(status, root);
  }

  private static JsonObject parseJson(byte[] body) {
    try {
      return JsonParser.parseString(new String(body, UTF_8)).getAsJsonObject();
    } catch (RuntimeException e) {
      throw new BadRequest("bad JSON body: " + e.getMessage());
    }
  }

  private static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // encoding helpers

  private record Part(Map<String, String> headers, byte[] body) {}

  private static String boundaryOf(String contentType) {
    if (contentType == null) {
      return null;
    }
    for (String p : contentType.split(";")) {
      String t = p.trim();
      if (t.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
        String b = t.substring(9);
        if (b.startsWith("\"") && b.endsWith("\"") && b.length() >= 2) {
          b = b.substring(1, b.length() - 1);
        }
        return b;
      }
    }
    return null;
  }

  /** RFC 2046 multipart, binary-safe: parts between {@code --boundary} lines. */
  static List<Part> parseMultipart(byte[] body, String boundary) {
    byte[] delim = ("--" + boundary).getBytes(ISO_8859_1);
    List<Part> parts = new ArrayList<>();
    int pos = indexOf(body, delim, 0);
    if (pos < 0) {
      throw new BadRequest("multipart body without its boundary");
    }
    while (true) {
      int after = pos + delim.length;
      if (after + 1 < body.length && body[after] == '-' && body[after + 1] == '-') {
        return parts; // closing delimiter
      }
      // Skip the rest of the delimiter line.
      int lineEnd = indexOf(body, new byte[] {'\r', '\n'}, after);
      if (lineEnd < 0) {
        throw new BadRequest("truncated multipart body");
      }
      int headersStart = lineEnd + 2;
      int headersEnd = indexOf(body, "\r\n\r\n".getBytes(ISO_8859_1), headersStart);
      Map<String, String> headers = new HashMap<>();
      int contentStart;
      if (headersEnd == headersStart - 2 || startsWith(body, headersStart, "\r\n")) {
        contentStart = headersStart + 2; // no headers
      } else {
        if (headersEnd < 0) {
          throw new BadRequest("truncated multipart part headers");
        }
        for (String l :
            new String(body, headersStart, headersEnd - headersStart, UTF_8).split("\r\n")) {
          int c = l.indexOf(':');
          if (c > 0) {
            headers.put(
                l.substring(0, c).trim().toLowerCase(Locale.ROOT), l.substring(c + 1).trim());
          }
        }
        contentStart = headersEnd + 4;
      }
      byte[] next = ("\r\n--" + boundary).getBytes(ISO_8859_1);
      int end = indexOf(body, next, contentStart);
      if (end < 0) {
        throw new BadRequest("multipart part without a closing boundary");
      }
      parts.add(new Part(headers, java.util.Arrays.copyOfRange(body, contentStart, end)));
      pos = end + 2;
    }
  }

  private static boolean startsWith(byte[] a, int from, String s) {
    byte[] b = s.getBytes(ISO_8859_1);
    if (from + b.length > a.length) {
      return false;
    }
    for (int i = 0; i < b.length; i++) {
      if (a[from + i] != b[i]) {
        return false;
      }
    }
    return true;
  }

  private static int indexOf(byte[] a, byte[] needle, int from) {
    outer:
    for (int i = Math.max(0, from); i <= a.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (a[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static Map<String, String> parseQuery(String raw) {
    Map<String, String> q = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return q;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      q.put(decodeQuery(k), decodeQuery(v));
    }
    return q;
  }

  private static String decodeQuery(String s) {
    return percentDecode(s.replace('+', ' '));
  }

  private static String decodePath(String s) {
    return percentDecode(s);
  }

  private static String percentDecode(String s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.writeBytes(String.valueOf(c).getBytes(UTF_8));
      }
    }
    return out.toString(UTF_8);
  }

  private static String encodePath(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~".indexOf(c) >= 0) {
        sb.append(c);
      } else {
        sb.append('%').append(String.format(Locale.ROOT, "%02X", b & 0xff));
      }
    }
    return sb.toString();
  }

  private static byte[] gunzip(byte[] body) throws IOException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
      return in.readAllBytes();
    }
  }

  static String md5(byte[] data) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String crc32c(byte[] data) {
    CRC32C c = new CRC32C();
    c.update(data);
    return Base64.getEncoder()
        .encodeToString(ByteBuffer.allocate(4).putInt((int) c.getValue()).array());
  }
}
