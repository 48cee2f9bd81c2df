package dev.loam.storage.s3;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.InvalidKeyException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.storage.s3.S3Errors.Op;
import dev.loam.store.ObjectKeys;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.core.client.config.SdkAdvancedAsyncClientOption;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * An {@link ObjectStore} on Amazon S3 or an S3-compatible server, through the AWS SDK v2 async
 * client (Netty). Every object key is stored under {@link S3StoreSettings#prefix()}.
 *
 * <ul>
 *   <li>{@link #create} is {@code PutObject} with {@code If-None-Match: *} (412: exists), or for
 *       objects of at least {@link S3StoreSettings#multipartThresholdBytes()} a multipart upload
 *       whose {@code CompleteMultipartUpload} carries {@code If-None-Match: *}.
 *   <li>Ranged reads are {@code GetObject} with {@code Range: bytes=a-b}; {@link #getTail} uses the
 *       suffix range {@code bytes=-n} and reads the size from {@code Content-Range}.
 *   <li>{@link #list} is one {@code ListObjectsV2} with {@code prefix}, {@code start-after} and
 *       {@code max-keys}; {@link #delete} is one {@code DeleteObjects} (at most 1000 keys).
 * </ul>
 *
 * <p>Failures are mapped in {@code S3Errors} (docs/reference/storage-s3.md). SDK retries are
 * bounded by {@link S3StoreSettings#maxAttempts()}; each attempt by {@link
 * S3StoreSettings#attemptTimeout()} and each call by {@link S3StoreSettings#callTimeout()}. The
 * store owns its SDK client and closes it in {@link #close()}; futures complete on the executor
 * given to the constructor.
 *
 * <p>{@code lastModifiedMillis} has one-second resolution: S3's {@code HEAD} sends {@code
 * Last-Modified} in seconds, and list results are cut to the same second so both agree.
 */
public final class S3ObjectStore implements ObjectStore {
  /** Largest object {@link #get(String)} returns in one array. */
  private static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  /** Carries a per-call attempt counter from the request into {@link AttemptCounter}. */
  private static final ExecutionAttribute<Attempts> ATTEMPTS =
      new ExecutionAttribute<>("dev.loam.storage.s3.attempts");

  private final S3StoreSettings settings;
  private final S3AsyncClient s3;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Opens a store. No I/O happens here: the bucket is first touched by the first call. Throws
   * {@link LoamException} INVALID when the SDK cannot be configured (for example, no region).
   *
   * @param completionExecutor where the store's futures complete; owned by the caller
   */
  public S3ObjectStore(S3StoreSettings settings, Executor completionExecutor) {
    this.settings = Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(completionExecutor, "completionExecutor");
    this.s3 = buildClient(settings, completionExecutor);
  }

  /** The settings this store was opened with. */
  public S3StoreSettings settings() {
    return settings;
  }

  private static S3AsyncClient buildClient(S3StoreSettings s, Executor completionExecutor) {
    AwsCredentialsProvider credentials =
        s.accessKeyId().isPresent()
            ? StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s.accessKeyId().get(), s.secretAccessKey().get()))
            : DefaultCredentialsProvider.builder().build();
    S3AsyncClientBuilder b =
        S3AsyncClient.builder()
            .httpClientBuilder(
                NettyNioAsyncHttpClient.builder()
                    .maxConcurrency(s.maxConnections())
                    // Requests beyond maxConnections wait here; the queue is bounded too.
                    .maxPendingConnectionAcquires(16 * s.maxConnections())
                    .connectionTimeout(s.connectTimeout())
                    .connectionAcquisitionTimeout(s.connectionAcquireTimeout())
                    .readTimeout(s.attemptTimeout())
                    .writeTimeout(s.attemptTimeout()))
            .credentialsProvider(credentials)
            .forcePathStyle(s.pathStyle())
            .requestChecksumCalculation(s.checksums().requestCalculation().toRequest())
            .responseChecksumValidation(s.checksums().responseValidation().toResponse())
            .asyncConfiguration(
                a ->
                    a.advancedOption(
                        SdkAdvancedAsyncClientOption.FUTURE_COMPLETION_EXECUTOR,
                        completionExecutor))
            .overrideConfiguration(
                o ->
                    o.retryStrategy(
                            AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(s.maxAttempts())
                                .build())
                        .apiCallAttemptTimeout(s.attemptTimeout())
                        .apiCallTimeout(s.callTimeout())
                        .addExecutionInterceptor(new AttemptCounter()));
    s.region().ifPresent(r -> b.region(Region.of(r)));
    s.endpoint().ifPresent(b::endpointOverride);
    try {
      return b.build();
    } catch (SdkException | IllegalArgumentException e) {
      throw new LoamException(
          Kind.INVALID,
          "cannot configure the S3 client: " + e.getMessage() + " bucket=" + s.bucket(),
          e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // writes

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return write(key, bytes, Op.CREATE);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return write(key, bytes, Op.PUT);
  }

  private CompletableFuture<Void> write(String key, byte[] bytes, Op op) {
    CompletableFuture<Void> written = send(key, bytes, op);
    if (op != Op.CREATE) {
      return written;
    }
    return written.exceptionallyCompose(
        e -> {
          Throwable t = S3Errors.unwrap(e);
          if (!S3Errors.isAmbiguousPreconditionFailure(t)) {
            return CompletableFuture.failedFuture(t);
          }
          // A retry found the key taken after an attempt that got no answer: that attempt may
          // have written it. The bytes tell: ours means our create took effect (or an identical
          // create did, which is the same to the caller); others mean someone else won.
          return get(key)
              .handle(
                  (stored, readFailure) -> {
                    if (readFailure != null) {
                      throw new CompletionException(t);
                    }
                    if (Arrays.equals(stored, bytes)) {
                      return null;
                    }
                    throw new CompletionException(
                        new ObjectExistsException(
                            "object already exists (http 412, after an unanswered attempt; the"
                                + " stored bytes differ)"
                                + ObjectKeys.describe(key),
                            t));
                  });
        });
  }

  private CompletableFuture<Void> send(String key, byte[] bytes, Op op) {
    if (bytes.length >= settings.multipartThresholdBytes()) {
      return call(key, op, (full, attempts) -> multipart(key, full, bytes, op, attempts));
    }
    return call(
        key,
        op,
        (full, attempts) ->
            s3.putObject(
                    r -> {
                      r.bucket(settings.bucket())
                          .key(full)
                          .contentLength((long) bytes.length)
                          .overrideConfiguration(counting(attempts));
                      if (op == Op.CREATE) {
                        r.ifNoneMatch("*");
                      }
                    },
                    // The caller keeps the array unchanged until the future completes (SPI).
                    AsyncRequestBody.fromBytesUnsafe(bytes))
                .thenApply(r -> null));
  }

  /**
   * A multipart upload: create, parts ({@code partConcurrency} at a time), complete (with {@code
   * If-None-Match: *} for create). Any failure aborts the upload so no parts are left behind.
   */
  private CompletableFuture<Void> multipart(
      String key, String full, byte[] bytes, Op op, Attempts completeAttempts) {
    // Keep within S3's 10,000 parts; arrays are < 2 GiB, so the default 8 MiB gives <= 256 parts.
    long partSize =
        Math.max(
            settings.partSizeBytes(),
            (bytes.length + (long) S3StoreSettings.MAX_PARTS - 1) / S3StoreSettings.MAX_PARTS);
    int parts = (int) ((bytes.length + partSize - 1) / partSize);
    ChecksumAlgorithm partChecksum = settings.checksums().partChecksum().algorithm();
    return s3.createMultipartUpload(
            r -> {
              r.bucket(settings.bucket()).key(full);
              if (partChecksum != null) {
                r.checksumAlgorithm(partChecksum);
              }
            })
        .exceptionallyCompose(
            e ->
                CompletableFuture.failedFuture(
                    S3Errors.map(e, Op.PART, key, new Attempts(), closed.get())))
        .thenCompose(
            created -> {
              String uploadId = created.uploadId();
              CompletedPart[] done = new CompletedPart[parts];
              CompletableFuture<Void> all =
                  uploadParts(full, uploadId, bytes, partSize, done)
                      // Nothing is visible before the complete, so a failed part changed nothing.
                      .exceptionallyCompose(
                          e ->
                              CompletableFuture.failedFuture(
                                  S3Errors.map(e, Op.PART, key, new Attempts(), closed.get())))
                      .thenCompose(
                          v ->
                              s3.completeMultipartUpload(
                                  r -> {
                                    r.bucket(settings.bucket())
                                        .key(full)
                                        .uploadId(uploadId)
                                        .multipartUpload(m -> m.parts(done))
                                        .overrideConfiguration(counting(completeAttempts));
                                    if (op == Op.CREATE) {
                                      r.ifNoneMatch("*");
                                    }
                                  }))
                      .thenApply(r -> null);
              return all.exceptionallyCompose(
                  e ->
                      // Best effort; the original failure is what the caller needs. An abort after
                      // a complete that did succeed is a harmless NoSuchUpload on S3.
                      s3.abortMultipartUpload(
                              r -> r.bucket(settings.bucket()).key(full).uploadId(uploadId))
                          .handle((r, ignored) -> null)
                          .thenCompose(x -> CompletableFuture.<Void>failedFuture(e)));
            });
  }

  private CompletableFuture<Void> uploadParts(
      String full, String uploadId, byte[] bytes, long partSize, CompletedPart[] done) {
    AtomicInteger next = new AtomicInteger();
    int workers = Math.min(settings.partConcurrency(), done.length);
    CompletableFuture<?>[] lanes = new CompletableFuture<?>[workers];
    for (int w = 0; w < workers; w++) {
      lanes[w] = uploadNextPart(full, uploadId, bytes, partSize, done, next);
    }
    return CompletableFuture.allOf(lanes);
  }

  /** One lane: uploads the next unclaimed part, then the next, until none is left. */
  private CompletableFuture<Void> uploadNextPart(
      String full,
      String uploadId,
      byte[] bytes,
      long partSize,
      CompletedPart[] done,
      AtomicInteger next) {
    int index = next.getAndIncrement();
    if (index >= done.length || closed.get()) {
      return closed.get()
          ? CompletableFuture.failedFuture(closedFailure(full))
          : CompletableFuture.completedFuture(null);
    }
    int from = (int) (index * partSize);
    int len = (int) Math.min(partSize, bytes.length - (long) from);
    int partNumber = index + 1;
    ChecksumAlgorithm partChecksum = settings.checksums().partChecksum().algorithm();
    return s3.uploadPart(
            r -> {
              r.bucket(settings.bucket())
                  .key(full)
                  .uploadId(uploadId)
                  .partNumber(partNumber)
                  .contentLength((long) len);
              if (partChecksum != null) {
                r.checksumAlgorithm(partChecksum);
              }
            },
            AsyncRequestBody.fromByteBufferUnsafe(ByteBuffer.wrap(bytes, from, len).slice()))
        .thenCompose(
            (UploadPartResponse r) -> {
              done[index] = completedPart(partNumber, r, partChecksum);
              return uploadNextPart(full, uploadId, bytes, partSize, done, next);
            });
  }

  /**
   * The part as CompleteMultipartUpload lists it: its ETag and, when the upload named a checksum
   * algorithm, the part's checksum of that algorithm (S3 refuses the complete without it).
   */
  private static CompletedPart completedPart(
      int partNumber, UploadPartResponse r, ChecksumAlgorithm partChecksum) {
    CompletedPart.Builder b = CompletedPart.builder().partNumber(partNumber).eTag(r.eTag());
    if (partChecksum == null) {
      return b.build();
    }
    switch (partChecksum) {
      case CRC32 -> b.checksumCRC32(r.checksumCRC32());
      case CRC32_C -> b.checksumCRC32C(r.checksumCRC32C());
      case SHA1 -> b.checksumSHA1(r.checksumSHA1());
      case SHA256 -> b.checksumSHA256(r.checksumSHA256());
      default -> throw new IllegalStateException("no part checksum for " + partChecksum);
    }
    return b.build();
  }

  // ---------------------------------------------------------------------------------------------
  // reads

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return call(
        key,
        Op.READ,
        (full, attempts) ->
            s3.getObject(
                    r -> r.bucket(settings.bucket()).key(full),
                    new BoundedBytes(ObjectKeys.describe(key)))
                .thenApply(ResponseBytes::asByteArrayUnsafe));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    if (offset < 0 || length <= 0) {
      return this.<byte[]>checked(key)
          .orElseGet(
              () ->
                  CompletableFuture.failedFuture(
                      new InvalidRangeException(
                          "invalid range offset="
                              + offset
                              + " length="
                              + length
                              + ObjectKeys.describe(key))));
    }
    // offset + length - 1 overflows only for offsets near Long.MAX_VALUE; S3 then answers 416.
    long last = offset > Long.MAX_VALUE - length ? Long.MAX_VALUE : offset + length - 1;
    return call(
        key,
        Op.READ,
        (full, attempts) ->
            s3.getObject(
                    r ->
                        r.bucket(settings.bucket()).key(full).range("bytes=" + offset + "-" + last),
                    AsyncResponseTransformer.toBytes())
                .thenApply(
                    rb -> {
                      byte[] b = rb.asByteArrayUnsafe();
                      if (rb.response().contentRange() != null) {
                        return b;
                      }
                      // A server that ignores Range sends the whole object (200): cut it here.
                      if (offset >= b.length) {
                        throw new InvalidRangeException(
                            "range not satisfiable offset="
                                + offset
                                + " size="
                                + b.length
                                + ObjectKeys.describe(key));
                      }
                      return Arrays.copyOfRange(
                          b, (int) offset, (int) Math.min(b.length, offset + (long) length));
                    }));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    if (length <= 0) {
      return this.<TailRead>checked(key)
          .orElseGet(
              () ->
                  CompletableFuture.failedFuture(
                      new InvalidRangeException(
                          "invalid tail length=" + length + ObjectKeys.describe(key))));
    }
    return call(
            key,
            Op.READ,
            (full, attempts) ->
                s3.getObject(
                        r -> r.bucket(settings.bucket()).key(full).range("bytes=-" + length),
                        AsyncResponseTransformer.toBytes())
                    .thenApply(rb -> tail(key, rb, length)))
        .exceptionallyCompose(
            e -> {
              // A suffix range of a 0-byte object is unsatisfiable (416) on S3; the SPI wants an
              // empty tail and size 0 instead, so look at the size before passing the 416 on.
              if (!(S3Errors.unwrap(e) instanceof InvalidRangeException)) {
                return CompletableFuture.failedFuture(S3Errors.unwrap(e));
              }
              return head(key)
                  .thenCompose(
                      info -> {
                        if (info.isEmpty()) {
                          return CompletableFuture.failedFuture(
                              new ObjectNotFoundException(
                                  "no such object" + ObjectKeys.describe(key)));
                        }
                        if (info.get().size() == 0) {
                          return CompletableFuture.completedFuture(new TailRead(new byte[0], 0));
                        }
                        return CompletableFuture.failedFuture(S3Errors.unwrap(e));
                      });
            });
  }

  private static TailRead tail(String key, ResponseBytes<GetObjectResponse> rb, int length) {
    byte[] b = rb.asByteArrayUnsafe();
    String range = rb.response().contentRange();
    if (range == null) {
      // The server ignored Range and sent everything.
      return new TailRead(
          b.length <= length ? b : Arrays.copyOfRange(b, b.length - length, b.length), b.length);
    }
    int slash = range.lastIndexOf('/');
    try {
      return new TailRead(b, Long.parseLong(range.substring(slash + 1).trim()));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw new StoreUnavailableException(
          "unparseable Content-Range " + range + ObjectKeys.describe(key), e);
    }
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    return call(
            key,
            Op.READ,
            (full, attempts) ->
                s3.headObject(r -> r.bucket(settings.bucket()).key(full))
                    .thenApply(
                        r ->
                            Optional.of(
                                new ObjectInfo(key, r.contentLength(), seconds(r.lastModified())))))
        .exceptionallyCompose(
            e ->
                S3Errors.unwrap(e) instanceof ObjectNotFoundException
                    ? CompletableFuture.completedFuture(Optional.empty())
                    : CompletableFuture.failedFuture(S3Errors.unwrap(e)));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter");
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedFailure(prefix));
    }
    Optional<InvalidRangeException> bad = ObjectKeys.checkMaxKeys(maxKeys, prefix);
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    if (!canStartAKey(prefix)) {
      return CompletableFuture.completedFuture(new ListPage(List.of(), Optional.empty()));
    }
    String base = settings.prefix();
    return guarded(
        prefix,
        Op.READ,
        () ->
            s3.listObjectsV2(
                    r -> {
                      r.bucket(settings.bucket()).prefix(base + prefix).maxKeys(maxKeys);
                      if (!startAfter.isEmpty()) {
                        r.startAfter(base + startAfter);
                      }
                    })
                .thenApply(
                    r -> {
                      List<ObjectInfo> out = new ArrayList<>(r.contents().size());
                      String last = null;
                      for (S3Object o : r.contents()) {
                        String k = o.key().substring(base.length());
                        last = k;
                        // Objects written by other tools under the prefix are not Loam objects.
                        if (ObjectKeys.isValid(k)) {
                          out.add(new ObjectInfo(k, o.size(), seconds(o.lastModified())));
                        }
                      }
                      boolean more = Boolean.TRUE.equals(r.isTruncated()) && last != null;
                      return new ListPage(out, more ? Optional.of(last) : Optional.empty());
                    }),
        new Attempts());
  }

  /** Whether some valid key starts with {@code prefix}; if not, listing needs no request. */
  static boolean canStartAKey(String prefix) {
    if (prefix.isEmpty()) {
      return true;
    }
    if (prefix.length() > ObjectKeys.MAX_KEY_BYTES) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (!ObjectKeys.isKeyChar(prefix.charAt(i))) {
        return false;
      }
    }
    // Every complete segment (one followed by '/') must be valid; the last may be partial.
    String[] segments = prefix.split("/", -1);
    for (int i = 0; i < segments.length - 1; i++) {
      if (!ObjectKeys.isValidSegment(segments[i])) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // delete

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    if (closed.get()) {
      return CompletableFuture.failedFuture(closedFailure(keys.isEmpty() ? "" : keys.get(0)));
    }
    Optional<InvalidRangeException> tooMany = ObjectKeys.checkDeleteBatch(keys.size());
    if (tooMany.isPresent()) {
      return CompletableFuture.failedFuture(tooMany.get());
    }
    List<DeleteFailure> failures = new ArrayList<>();
    LinkedHashSet<String> valid = new LinkedHashSet<>();
    for (String k : keys) {
      Optional<InvalidKeyException> bad = check(k);
      if (bad.isPresent()) {
        failures.add(new DeleteFailure(k, bad.get()));
      } else {
        valid.add(k);
      }
    }
    if (valid.isEmpty()) {
      return CompletableFuture.completedFuture(List.copyOf(failures));
    }
    String base = settings.prefix();
    List<ObjectIdentifier> ids = new ArrayList<>(valid.size());
    for (String k : valid) {
      ids.add(ObjectIdentifier.builder().key(base + k).build());
    }
    return guarded(
        valid.iterator().next(),
        Op.DELETE,
        () ->
            s3.deleteObjects(
                    r ->
                        r.bucket(settings.bucket())
                            .delete(Delete.builder().objects(ids).quiet(true).build()))
                .thenApply(
                    (DeleteObjectsResponse r) -> {
                      for (S3Error err : r.errors()) {
                        String k =
                            err.key() != null && err.key().startsWith(base)
                                ? err.key().substring(base.length())
                                : String.valueOf(err.key());
                        S3Errors.deleteFailure(err.code(), err.message(), k)
                            .ifPresent(f -> failures.add(new DeleteFailure(k, f)));
                      }
                      return List.copyOf(failures);
                    }),
        new Attempts());
  }

  // ---------------------------------------------------------------------------------------------
  // close

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      s3.close();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // plumbing

  /** A call on one object: validates the key, runs {@code body}, maps its failure. */
  private <T> CompletableFuture<T> call(
      String key, Op op, BiFunction<String, Attempts, CompletableFuture<T>> body) {
    Objects.requireNonNull(key, "key");
    Optional<CompletableFuture<T>> rejected = checked(key);
    if (rejected.isPresent()) {
      return rejected.get();
    }
    Attempts attempts = new Attempts();
    String full = settings.prefix() + key;
    return guarded(key, op, () -> body.apply(full, attempts), attempts);
  }

  /** Empty if the store is open and {@code key} valid, else the failed future to return. */
  private <T> Optional<CompletableFuture<T>> checked(String key) {
    if (closed.get()) {
      return Optional.of(CompletableFuture.failedFuture(closedFailure(key)));
    }
    Optional<InvalidKeyException> bad = check(key);
    return bad.map(CompletableFuture::failedFuture);
  }

  /** The key rules of the SPI, plus S3's 1024-byte limit on the key with the store's prefix. */
  private Optional<InvalidKeyException> check(String key) {
    Optional<InvalidKeyException> bad = ObjectKeys.check(key);
    if (bad.isPresent()) {
      return bad;
    }
    int total = settings.prefix().length() + key.length();
    if (total > ObjectKeys.MAX_KEY_BYTES) {
      return Optional.of(
          new InvalidKeyException(
              "key with the store prefix is "
                  + total
                  + " bytes, over S3's "
                  + ObjectKeys.MAX_KEY_BYTES
                  + ObjectKeys.describe(key)));
    }
    return Optional.empty();
  }

  /** Runs {@code body} so that nothing is thrown and every failure goes through S3Errors. */
  private <T> CompletableFuture<T> guarded(
      String key, Op op, Supplier<CompletableFuture<T>> body, Attempts attempts) {
    CompletableFuture<T> f;
    try {
      f = body.get();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    f.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.complete(v);
          } else {
            out.completeExceptionally(S3Errors.map(e, op, key, attempts, closed.get()));
          }
        });
    return out;
  }

  private static AwsRequestOverrideConfiguration counting(Attempts attempts) {
    return AwsRequestOverrideConfiguration.builder()
        .putExecutionAttribute(ATTEMPTS, attempts)
        .build();
  }

  private static StoreUnavailableException closedFailure(String key) {
    return new StoreUnavailableException("store is closed" + ObjectKeys.describe(key));
  }

  private static long seconds(Instant t) {
    return t == null ? 0 : t.getEpochSecond() * 1000;
  }

  /** Counts HTTP attempts, and their responses, of calls that carry an {@link #ATTEMPTS}. */
  private static final class AttemptCounter implements ExecutionInterceptor {
    @Override
    public void beforeTransmission(
        Context.BeforeTransmission context, ExecutionAttributes attributes) {
      Attempts a = attributes.getAttribute(ATTEMPTS);
      if (a != null) {
        a.sent();
      }
    }

    @Override
    public void afterTransmission(
        Context.AfterTransmission context, ExecutionAttributes attributes) {
      Attempts a = attributes.getAttribute(ATTEMPTS);
      if (a != null) {
        a.answered();
      }
    }
  }

  /**
   * {@link AsyncResponseTransformer#toBytes()} that refuses, before reading the body, an object too
   * large for one array (the SPI's invalid range).
   */
  private static final class BoundedBytes
      implements AsyncResponseTransformer<GetObjectResponse, ResponseBytes<GetObjectResponse>> {
    private final String where;
    private final AsyncResponseTransformer<GetObjectResponse, ResponseBytes<GetObjectResponse>>
        delegate = AsyncResponseTransformer.toBytes();
    private volatile CompletableFuture<ResponseBytes<GetObjectResponse>> result;
    private volatile Long tooBig;

    BoundedBytes(String where) {
      this.where = where;
    }

    @Override
    public CompletableFuture<ResponseBytes<GetObjectResponse>> prepare() {
      CompletableFuture<ResponseBytes<GetObjectResponse>> mine = new CompletableFuture<>();
      tooBig = null;
      result = mine;
      delegate
          .prepare()
          .whenComplete(
              (v, e) -> {
                if (e != null) {
                  mine.completeExceptionally(e);
                } else {
                  mine.complete(v);
                }
              });
      return mine;
    }

    @Override
    public void onResponse(GetObjectResponse response) {
      Long size = response.contentLength();
      if (size != null && size > MAX_ARRAY_BYTES) {
        tooBig = size;
      } else {
        delegate.onResponse(response);
      }
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
      Long size = tooBig;
      if (size == null) {
        delegate.onStream(publisher);
        return;
      }
      publisher.subscribe(new Cancelling());
      result.completeExceptionally(
          new InvalidRangeException(
              "object of "
                  + size
                  + " bytes is too large for one array; read it in ranges"
                  + where));
    }

    @Override
    public void exceptionOccurred(Throwable error) {
      delegate.exceptionOccurred(error);
    }
  }

  /** Cancels the body it is given at once. */
  private static final class Cancelling implements org.reactivestreams.Subscriber<ByteBuffer> {
    @Override
    public void onSubscribe(org.reactivestreams.Subscription s) {
      s.cancel();
    }

    @Override
    public void onNext(ByteBuffer b) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onComplete() {}
  }
}
