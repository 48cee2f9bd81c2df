package dev.loam.storage.azure;

import com.azure.core.http.HttpClient;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.core.http.rest.PagedResponse;
import com.azure.core.http.rest.Response;
import com.azure.core.util.BinaryData;
import com.azure.core.util.FluxUtil;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.batch.BlobBatch;
import com.azure.storage.blob.batch.BlobBatchAsyncClient;
import com.azure.storage.blob.batch.BlobBatchClientBuilder;
import com.azure.storage.blob.models.BlobDownloadAsyncResponse;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.models.DownloadRetryOptions;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobAsyncClient;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.InvalidKeyException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.storage.azure.AzureFailures.Attempts;
import dev.loam.storage.azure.AzureFailures.Op;
import dev.loam.store.ObjectKeys;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.resources.ConnectionProvider;
import reactor.util.retry.Retry;

/**
 * An {@link ObjectStore} on Azure Blob Storage (block blobs), through the async {@code
 * azure-storage-blob} client. Each key {@code k} is the blob {@code <prefix>k} of one container.
 *
 * <ul>
 *   <li>{@code create}: Put Blob (or Put Block List) with {@code If-None-Match: *}; Azure answers
 *       409 {@code BlobAlreadyExists} when the blob exists.
 *   <li>Objects above {@link AzureBlobStoreSettings#blockUploadThresholdBytes()} are staged as
 *       blocks whose ids carry a per-upload nonce (so two racing uploads of one key never mix their
 *       uncommitted blocks) and published by one Put Block List, which carries the precondition.
 *   <li>{@code get(key, offset, length)}: one Get Blob with {@code x-ms-range}.
 *   <li>{@code getTail}: <b>two requests</b>. Azure's ranges are offset ranges only ({@code
 *       bytes=start-} or {@code bytes=start-end}; no suffix form), so the store reads the size and
 *       ETag (Get Blob Properties), then the last bytes with {@code If-Match: <etag>}. If the
 *       object was replaced in between (412) it starts over, at most 3 times.
 *   <li>{@code list}: one List Blobs request in the usual case, with {@code prefix}, {@code
 *       startFrom} (inclusive, so the store asks for one extra entry and drops {@code startAfter}
 *       itself) and {@code maxresults = maxKeys + 1}, so it knows whether more follow without a
 *       second request. A short page with a continuation marker is followed, at most {@link
 *       AzureBlobStoreSettings#maxListRequests()} requests per call.
 *   <li>{@code delete}: Blob Batch, at most {@value #MAX_BATCH} sub-requests per batch (Azure's
 *       limit); a 404 of one key is success.
 * </ul>
 *
 * <p>Futures complete on the executor given to {@link #open}, never on a Netty I/O thread. Errors
 * are mapped in one place ({@code AzureFailures}). The store owns its connection pool and disposes
 * it in {@link #close()}.
 */
public final class AzureBlobObjectStore implements ObjectStore {
  /** Azure's limit on sub-requests in one Blob Batch. */
  static final int MAX_BATCH = 256;

  /** Blob batches of one delete call in flight at once. */
  private static final int BATCH_CONCURRENCY = 2;

  /** How often {@code getTail} starts over when the object changes between its two requests. */
  private static final int TAIL_ATTEMPTS = 3;

  /** The largest object {@code get(key)} returns in one array. */
  private static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  /**
   * Pooled connections idle longer than this are closed. Shorter than common server keep-alive
   * timeouts (Node's default, which Azurite uses, is 5 s), so the pool does not hand a write a
   * connection the server is closing; such a write would end as an ambiguous attempt.
   */
  private static final Duration MAX_IDLE = Duration.ofSeconds(4);

  /** The published key of the emulator account (Azurite and the old storage emulator). */
  private static final String EMULATOR_KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  private final AzureBlobStoreSettings settings;
  private final Executor callbacks;
  private final ConnectionProvider connections;
  private final BlobContainerAsyncClient container;
  private final BlobBatchAsyncClient batch;
  private final DownloadRetryOptions downloadRetries;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicReference<CompletableFuture<Void>> containerReady = new AtomicReference<>();

  private AzureBlobObjectStore(AzureBlobStoreSettings settings, Executor callbacks) {
    this.settings = settings;
    this.callbacks = callbacks;
    this.connections =
        ConnectionProvider.builder("loam-azure")
            .maxConnections(settings.maxConnections())
            .pendingAcquireMaxCount(settings.maxConnections() * 16)
            .pendingAcquireTimeout(settings.tryTimeout())
            .maxIdleTime(MAX_IDLE)
            .build();
    HttpClient http =
        new NettyAsyncHttpClientBuilder()
            .connectionProvider(connections)
            .connectTimeout(settings.connectTimeout())
            .responseTimeout(settings.responseTimeout())
            .readTimeout(settings.responseTimeout())
            .writeTimeout(settings.responseTimeout())
            .build();
    BlobServiceClientBuilder builder =
        new BlobServiceClientBuilder()
            .httpClient(http)
            .retryOptions(
                new RequestRetryOptions(
                    RetryPolicyType.EXPONENTIAL,
                    settings.maxTries(),
                    settings.tryTimeout(),
                    settings.retryDelay(),
                    settings.maxRetryDelay(),
                    null))
            .addPolicy(AzureFailures.policy());
    String endpoint = settings.effectiveEndpoint();
    switch (settings.credentialKind()) {
      case "connection-string" -> {
        builder.connectionString(settings.connectionString());
        if (!settings.endpoint().isEmpty()) {
          builder.endpoint(endpoint);
        }
      }
      case "sas" -> builder.endpoint(endpoint).sasToken(settings.sasToken());
      case "account-key" ->
          builder
              .endpoint(endpoint)
              .credential(
                  new StorageSharedKeyCredential(settings.accountName(), settings.accountKey()));
      case "emulator-key" ->
          builder
              .endpoint(endpoint)
              .credential(new StorageSharedKeyCredential(settings.accountName(), EMULATOR_KEY));
      default -> builder.endpoint(endpoint).credential(new DefaultAzureCredentialBuilder().build());
    }
    BlobServiceAsyncClient service = builder.buildAsyncClient();
    this.container = service.getBlobContainerAsyncClient(settings.container());
    this.batch = new BlobBatchClientBuilder(service).buildAsyncClient();
    this.downloadRetries = new DownloadRetryOptions().setMaxRetryRequests(settings.maxTries() - 1);
  }

  /**
   * Opens a store; does no I/O (a missing container shows at the first request, or is created then
   * when {@link AzureBlobStoreSettings#createContainer()} is set). Futures complete on {@code
   * callbackExecutor}, which the caller owns. Throws {@link dev.loam.error.LoamException} INVALID
   * if the SDK rejects the settings (for example a malformed connection string).
   */
  public static AzureBlobObjectStore open(
      AzureBlobStoreSettings settings, Executor callbackExecutor) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(callbackExecutor, "callbackExecutor");
    try {
      return new AzureBlobObjectStore(settings, callbackExecutor);
    } catch (IllegalArgumentException | IllegalStateException e) {
      // The SDK's message may quote the connection string or SAS; do not repeat it.
      throw new dev.loam.error.LoamException(
          dev.loam.error.LoamException.Kind.INVALID,
          "the Azure SDK rejected the store settings ("
              + e.getClass().getSimpleName()
              + ") account="
              + settings.accountName()
              + " container="
              + settings.container()
              + " credential="
              + settings.credentialKind()
              + (settings.credentialKind().equals("connection-string")
                      || settings.credentialKind().equals("sas")
                  ? ""
                  : " reason=" + e.getMessage()));
    }
  }

  /** The settings this store was opened with (secrets masked in their {@code toString}). */
  public AzureBlobStoreSettings settings() {
    return settings;
  }

  // -----------------------------------------------------------------------------------------------
  // writes

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return write(key, bytes, true);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return write(key, bytes, false);
  }

  private CompletableFuture<Void> write(String key, byte[] bytes, boolean ifAbsent) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(bytes, "bytes");
    Op op = ifAbsent ? Op.CREATE : Op.PUT;
    Optional<InvalidKeyException> bad = checkKey(key);
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    BlockBlobAsyncClient blob = blob(key).getBlockBlobAsyncClient();
    BlobRequestConditions conditions =
        ifAbsent ? new BlobRequestConditions().setIfNoneMatch("*") : null;
    Attempts attempts = new Attempts();
    String id = ObjectKeys.describe(key);
    if (bytes.length <= settings.blockUploadThresholdBytes()) {
      return run(
          op,
          id,
          attempts,
          () ->
              blob.uploadWithResponse(
                      new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(bytes))
                          .setRequestConditions(conditions))
                  .then());
    }
    // Only the commit carries the attempt record: a retried Put Block publishes nothing.
    return run(
        op,
        id,
        attempts,
        () ->
            blockUpload(blob, bytes, conditions, id, attempts)
                .contextWrite(ctx -> ctx.delete(Attempts.KEY)));
  }

  /**
   * Stages {@code bytes} as blocks, then commits the block list with {@code conditions}. Block ids
   * are {@code base64(<32 hex nonce><6-digit index>)}: the same length for every block of every
   * upload (Azure requires one id length per blob), and unique per upload, because uncommitted
   * blocks are kept per blob name, so two racing uploads with the same ids would commit each
   * other's bytes. A failure while staging changed nothing visible (the blocks expire unused).
   */
  private Mono<Void> blockUpload(
      BlockBlobAsyncClient blob,
      byte[] bytes,
      BlobRequestConditions conditions,
      String id,
      Attempts attempts) {
    int blockSize = settings.blockSizeBytes();
    int blocks = (int) ((bytes.length + (long) blockSize - 1) / blockSize);
    String nonce = UUID.randomUUID().toString().replace("-", "");
    List<String> ids = new ArrayList<>(blocks);
    for (int i = 0; i < blocks; i++) {
      String raw = nonce + String.format("%06d", i);
      ids.add(Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.US_ASCII)));
    }
    Mono<Void> stage =
        Flux.range(0, blocks)
            .flatMap(
                i -> {
                  int from = i * blockSize;
                  int len = Math.min(blockSize, bytes.length - from);
                  ByteBuffer slice = ByteBuffer.wrap(bytes, from, len).slice();
                  return blob.stageBlock(ids.get(i), BinaryData.fromByteBuffer(slice));
                },
                settings.blockUploadConcurrency())
            .then()
            .onErrorMap(e -> AzureFailures.map(e, Op.STAGE, id, null, closed.get()));
    Mono<Void> commit =
        Mono.defer(
            () ->
                blob.commitBlockListWithResponse(
                        new BlockBlobCommitBlockListOptions(ids).setRequestConditions(conditions))
                    .then()
                    .contextWrite(ctx -> ctx.put(Attempts.KEY, attempts)));
    return stage.then(commit);
  }

  // -----------------------------------------------------------------------------------------------
  // reads

  @Override
  public CompletableFuture<byte[]> get(String key) {
    Objects.requireNonNull(key, "key");
    Optional<InvalidKeyException> bad = checkKey(key);
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    String id = ObjectKeys.describe(key);
    BlobAsyncClient blob = blob(key);
    return run(
        Op.GET,
        id,
        null,
        () ->
            blob.downloadStreamWithResponse(null, downloadRetries, null, false)
                .flatMap(
                    r -> {
                      long size = r.getDeserializedHeaders().getContentLength();
                      if (size > MAX_ARRAY_BYTES) {
                        discard(r);
                        return Mono.error(
                            new InvalidRangeException(
                                "object of " + size + " bytes is too large for one array" + id));
                      }
                      return body(r, size);
                    }));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    Objects.requireNonNull(key, "key");
    Optional<InvalidKeyException> bad = checkKey(key);
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    String id = ObjectKeys.describe(key);
    if (offset < 0 || length <= 0) {
      return CompletableFuture.failedFuture(
          new InvalidRangeException("invalid range offset=" + offset + " length=" + length + id));
    }
    BlobAsyncClient blob = blob(key);
    return run(Op.GET, id, null, () -> ranged(blob, offset, length, null, id).map(Ranged::bytes));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    Objects.requireNonNull(key, "key");
    Optional<InvalidKeyException> bad = checkKey(key);
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    String id = ObjectKeys.describe(key);
    if (length <= 0) {
      return CompletableFuture.failedFuture(
          new InvalidRangeException("invalid tail length=" + length + id));
    }
    BlobAsyncClient blob = blob(key);
    return run(
        Op.GET,
        id,
        null,
        () ->
            Mono.defer(
                    () ->
                        blob.getPropertiesWithResponse(null)
                            .flatMap(
                                p -> {
                                  long size = p.getValue().getBlobSize();
                                  if (size == 0) {
                                    return Mono.just(new TailRead(new byte[0], 0));
                                  }
                                  long take = Math.min(length, size);
                                  BlobRequestConditions sameObject =
                                      new BlobRequestConditions()
                                          .setIfMatch(p.getValue().getETag());
                                  return ranged(blob, size - take, take, sameObject, id)
                                      .map(r -> new TailRead(r.bytes(), size));
                                }))
                // 412: the object was replaced between the two requests; read the new one.
                .retryWhen(
                    Retry.max(TAIL_ATTEMPTS - 1)
                        .filter(
                            e -> e instanceof BlobStorageException b && b.getStatusCode() == 412)
                        .onRetryExhaustedThrow((spec, signal) -> signal.failure())));
  }

  private record Ranged(byte[] bytes, long objectSize) {}

  /**
   * One Get Blob of {@code count} bytes from {@code offset}. A server that ignores the range and
   * answers 200 with the whole object is handled too (the bytes are cut here).
   */
  private Mono<Ranged> ranged(
      BlobAsyncClient blob, long offset, long count, BlobRequestConditions conditions, String id) {
    // offset + count - 1 may pass Long.MAX_VALUE; Azure cuts the range at the object's end anyway.
    long cappedCount = Math.min(count, Long.MAX_VALUE - offset);
    return blob.downloadStreamWithResponse(
            new BlobRange(offset, cappedCount), downloadRetries, conditions, false)
        .flatMap(
            r -> {
              long bodyLength = r.getDeserializedHeaders().getContentLength();
              String contentRange = r.getDeserializedHeaders().getContentRange();
              long total = totalSize(contentRange, bodyLength);
              boolean whole = contentRange == null;
              if (offset >= total) {
                discard(r);
                return Mono.error(
                    new InvalidRangeException(
                        "range starts at or after the end offset="
                            + offset
                            + " size="
                            + total
                            + id));
              }
              if (bodyLength > MAX_ARRAY_BYTES) {
                discard(r);
                return Mono.error(new InvalidRangeException("range too large for one array" + id));
              }
              return body(r, bodyLength)
                  .map(
                      b -> {
                        if (!whole) {
                          return new Ranged(b, total);
                        }
                        int end = (int) Math.min(b.length, offset + count);
                        return new Ranged(
                            java.util.Arrays.copyOfRange(b, (int) offset, end), total);
                      });
            });
  }

  /** The total size from {@code Content-Range: bytes a-b/total}, or the body length if absent. */
  private static long totalSize(String contentRange, long bodyLength) {
    if (contentRange == null) {
      return bodyLength;
    }
    int slash = contentRange.lastIndexOf('/');
    if (slash < 0 || contentRange.endsWith("*")) {
      return bodyLength;
    }
    return Long.parseLong(contentRange.substring(slash + 1).trim());
  }

  /** Releases a response whose body will not be read. */
  private static void discard(BlobDownloadAsyncResponse r) {
    try {
      r.close();
    } catch (java.io.IOException | RuntimeException e) {
      // The connection is dropped instead of reused; nothing else to do.
    }
  }

  private static Mono<byte[]> body(BlobDownloadAsyncResponse r, long length) {
    if (length == 0) {
      discard(r);
      return Mono.just(new byte[0]);
    }
    return FluxUtil.collectBytesInByteBufferStream(r.getValue(), (int) length);
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    Objects.requireNonNull(key, "key");
    Optional<InvalidKeyException> bad = checkKey(key);
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    String id = ObjectKeys.describe(key);
    BlobAsyncClient blob = blob(key);
    return run(
        Op.HEAD,
        id,
        null,
        () ->
            blob.getPropertiesWithResponse(null)
                .map(
                    p ->
                        Optional.of(
                            new ObjectInfo(
                                key,
                                p.getValue().getBlobSize(),
                                p.getValue().getLastModified().toInstant().toEpochMilli())))
                .onErrorResume(
                    e ->
                        AzureFailures.map(e, Op.HEAD, id, null, closed.get())
                            instanceof ObjectNotFoundException,
                    e -> Mono.just(Optional.empty())));
  }

  // -----------------------------------------------------------------------------------------------
  // list

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter");
    Optional<InvalidRangeException> badMax = ObjectKeys.checkMaxKeys(maxKeys, prefix);
    if (badMax.isPresent()) {
      return CompletableFuture.failedFuture(badMax.get());
    }
    if (closed.get()) {
      return closedFuture(", prefix=" + prefix);
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (!ObjectKeys.isKeyChar(prefix.charAt(i))) {
        // No valid key starts with it; no request needed.
        return CompletableFuture.completedFuture(new ListPage(List.of(), Optional.empty()));
      }
    }
    ListBlobsOptions options =
        new ListBlobsOptions()
            .setPrefix(settings.prefix() + prefix)
            .setMaxResultsPerPage(maxKeys + 1);
    if (!startAfter.isEmpty()) {
      // startFrom is inclusive: startAfter itself comes back if it exists and is dropped below.
      options.setStartFrom(settings.prefix() + startAfter);
    }
    String id = ", prefix=" + prefix + " startAfter=" + startAfter;
    return run(
        Op.LIST,
        id,
        null,
        () -> listFrom(options, null, startAfter, maxKeys, new ArrayList<>(), startAfter, 1));
  }

  private Mono<ListPage> listFrom(
      ListBlobsOptions options,
      String marker,
      String startAfter,
      int maxKeys,
      List<ObjectInfo> acc,
      String lastSeen,
      int request) {
    var pages = container.listBlobs(options);
    Mono<PagedResponse<BlobItem>> page =
        (marker == null ? pages.byPage() : pages.byPage(marker)).next();
    return page.flatMap(
        p -> {
          String seen = lastSeen;
          int strip = settings.prefix().length();
          for (BlobItem item : p.getValue()) {
            String key = item.getName().substring(strip);
            seen = key;
            if (key.compareTo(startAfter) <= 0 || !ObjectKeys.isValid(key)) {
              continue;
            }
            acc.add(
                new ObjectInfo(
                    key,
                    item.getProperties().getContentLength(),
                    item.getProperties().getLastModified().toInstant().toEpochMilli()));
          }
          String next = p.getContinuationToken();
          if (acc.size() > maxKeys) {
            List<ObjectInfo> objects = acc.subList(0, maxKeys);
            return Mono.just(new ListPage(objects, Optional.of(objects.get(maxKeys - 1).key())));
          }
          if (next == null || next.isEmpty()) {
            return Mono.just(new ListPage(acc, Optional.empty()));
          }
          if (request >= settings.maxListRequests()) {
            // Out of requests for this call; the caller continues from the last key seen.
            return Mono.just(new ListPage(acc, Optional.of(seen)));
          }
          return listFrom(options, next, startAfter, maxKeys, acc, seen, request + 1);
        });
  }

  // -----------------------------------------------------------------------------------------------
  // delete

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    Optional<InvalidRangeException> tooMany = ObjectKeys.checkDeleteBatch(keys.size());
    if (tooMany.isPresent()) {
      return CompletableFuture.failedFuture(tooMany.get());
    }
    if (closed.get()) {
      return closedFuture(", keys=" + keys.size());
    }
    Map<String, Optional<InvalidKeyException>> invalid = new LinkedHashMap<>();
    LinkedHashSet<String> unique = new LinkedHashSet<>();
    for (String key : keys) {
      Objects.requireNonNull(key, "key");
      Optional<InvalidKeyException> bad = checkKey(key);
      invalid.put(key, bad);
      if (bad.isEmpty()) {
        unique.add(key);
      }
    }
    List<List<String>> chunks = new ArrayList<>();
    List<String> all = new ArrayList<>(unique);
    for (int from = 0; from < all.size(); from += MAX_BATCH) {
      chunks.add(all.subList(from, Math.min(all.size(), from + MAX_BATCH)));
    }
    Map<String, ObjectStoreException> failed = new java.util.concurrent.ConcurrentHashMap<>();
    String id = ", keys=" + keys.size();
    return run(
        Op.DELETE,
        id,
        null,
        () ->
            Flux.fromIterable(chunks)
                .flatMap(chunk -> deleteBatch(chunk, failed), BATCH_CONCURRENCY)
                .collectList()
                .flatMap(
                    wholeBatchFailures -> {
                      if (!chunks.isEmpty() && wholeBatchFailures.size() == chunks.size()) {
                        // Every batch failed as a whole: the request failed, not single keys.
                        return Mono.error(wholeBatchFailures.get(0));
                      }
                      List<DeleteFailure> result = new ArrayList<>();
                      for (String key : keys) {
                        Optional<InvalidKeyException> bad = invalid.get(key);
                        if (bad.isPresent()) {
                          result.add(new DeleteFailure(key, bad.get()));
                        } else if (failed.containsKey(key)) {
                          result.add(new DeleteFailure(key, failed.get(key)));
                        }
                      }
                      return Mono.just(result);
                    }));
  }

  /**
   * Deletes one chunk (at most {@value #MAX_BATCH} keys) in one Blob Batch. Per-key failures go to
   * {@code failed}; emits the mapped failure when the batch failed as a whole (its keys are then
   * also recorded in {@code failed}), nothing otherwise.
   */
  private Mono<ObjectStoreException> deleteBatch(
      List<String> chunk, Map<String, ObjectStoreException> failed) {
    return Mono.defer(
        () -> {
          BlobBatch b = batch.getBlobBatch();
          Map<String, Response<Void>> responses = new LinkedHashMap<>();
          for (String key : chunk) {
            responses.put(
                key,
                // The URL form, not (container, name): with a path-style endpoint (Azurite,
                // http://host:port/<account>) the SDK's (container, name) form drops the account
                // from the sub-request path and the emulator rejects it.
                b.deleteBlob(blob(key).getBlobUrl(), DeleteSnapshotsOptionType.INCLUDE, null));
          }
          return batch
              .submitBatchWithResponse(b, false)
              .then(
                  Mono.<ObjectStoreException>fromRunnable(
                      () -> {
                        for (var e : responses.entrySet()) {
                          ObjectStoreException f = deleteOutcome(e.getKey(), e.getValue());
                          if (f != null) {
                            failed.put(e.getKey(), f);
                          }
                        }
                      }))
              .onErrorResume(
                  e -> {
                    Throwable mapped =
                        AzureFailures.map(
                            e, Op.DELETE, ", keys=" + chunk.size(), null, closed.get());
                    ObjectStoreException f =
                        mapped instanceof ObjectStoreException o
                            ? o
                            : new StoreUnavailableException(
                                "blob batch failed" + ", keys=" + chunk.size(), mapped);
                    for (String key : chunk) {
                      failed.put(key, f);
                    }
                    return Mono.just(f);
                  });
        });
  }

  /** The failure of one batch sub-request, or null for success (404 included). */
  private ObjectStoreException deleteOutcome(String key, Response<Void> response) {
    try {
      response.getStatusCode();
      return null;
    } catch (RuntimeException e) {
      if (e instanceof BlobStorageException b && b.getStatusCode() == 404) {
        return null;
      }
      Throwable mapped =
          AzureFailures.map(e, Op.DELETE, ObjectKeys.describe(key), null, closed.get());
      return mapped instanceof ObjectStoreException o
          ? o
          : new StoreUnavailableException(
              "no result for this key in the batch response" + ObjectKeys.describe(key), e);
    }
  }

  // -----------------------------------------------------------------------------------------------
  // plumbing

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      connections.dispose();
    }
  }

  private BlobAsyncClient blob(String key) {
    return container.getBlobAsyncClient(blobName(key));
  }

  private String blobName(String key) {
    return settings.prefix() + key;
  }

  /** The key rules, plus Azure's 1024-character limit on the blob name (prefix included). */
  private Optional<InvalidKeyException> checkKey(String key) {
    Optional<InvalidKeyException> bad = ObjectKeys.check(key);
    if (bad.isPresent()) {
      return bad;
    }
    if (settings.prefix().length() + key.length() > AzureBlobStoreSettings.MAX_BLOB_NAME_CHARS) {
      return Optional.of(
          new InvalidKeyException(
              "key too long for this store: prefix plus key exceed Azure's "
                  + AzureBlobStoreSettings.MAX_BLOB_NAME_CHARS
                  + "-character blob names prefix="
                  + settings.prefix()
                  + ObjectKeys.describe(key)));
    }
    return Optional.empty();
  }

  private <T> CompletableFuture<T> closedFuture(String id) {
    return CompletableFuture.failedFuture(new StoreUnavailableException("store closed" + id));
  }

  /**
   * Subscribes to {@code call} (after the container exists, when the store creates it) and
   * completes the returned future on the callback executor with the value or the mapped failure.
   */
  private <T> CompletableFuture<T> run(
      Op op, String id, Attempts attempts, Supplier<Mono<T>> call) {
    if (closed.get()) {
      return closedFuture(id);
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    Mono<T> mono = Mono.defer(call);
    if (attempts != null) {
      mono = mono.contextWrite(ctx -> ctx.put(Attempts.KEY, attempts));
    }
    if (settings.createContainer()) {
      mono = Mono.defer(() -> Mono.fromFuture(containerReady())).then(mono);
    }
    mono.toFuture()
        .whenComplete(
            (value, error) -> {
              Runnable complete;
              if (error == null) {
                complete = () -> result.complete(value);
              } else {
                Throwable mapped = AzureFailures.map(error, op, id, attempts, closed.get());
                complete = () -> result.completeExceptionally(mapped);
              }
              try {
                callbacks.execute(complete);
              } catch (RejectedExecutionException e) {
                complete.run();
              }
            });
    return result;
  }

  /**
   * Creates the container once (if absent); a failure is forgotten so the next call tries again.
   */
  private CompletableFuture<Void> containerReady() {
    CompletableFuture<Void> ready = containerReady.get();
    if (ready != null && !ready.isCompletedExceptionally()) {
      return ready;
    }
    CompletableFuture<Void> mine = new CompletableFuture<>();
    if (!containerReady.compareAndSet(ready, mine)) {
      return containerReady();
    }
    container
        .createIfNotExists()
        .toFuture()
        .whenComplete(
            (created, error) -> {
              if (error == null) {
                mine.complete(null);
              } else {
                Throwable mapped =
                    AzureFailures.map(
                        error,
                        Op.CONTAINER,
                        ", container=" + settings.container(),
                        null,
                        closed.get());
                mine.completeExceptionally(
                    mapped instanceof ObjectStoreException
                        ? mapped
                        : new StoreUnavailableException(
                            "could not create the container, container=" + settings.container(),
                            mapped));
              }
            });
    return mine;
  }
}
