package dev.loam.storage.gcs;

import com.google.api.gax.paging.Page;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.BatchResult;
import com.google.cloud.NoCredentials;
import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.HttpStorageOptions;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobField;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import com.google.cloud.storage.Storage.BlobWriteOption;
import com.google.cloud.storage.StorageBatch;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.InvalidKeyException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreContext;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.storage.gcs.GcsErrors.Op;
import dev.loam.store.ObjectKeys;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@link ObjectStore} on Google Cloud Storage, through the JSON API of the official {@code
 * google-cloud-storage} client.
 *
 * <p>The client is synchronous, so every call runs on the {@link StoreContext#ioExecutor()} (which
 * bounds the concurrency) and completes its future from there; failures arrive only through the
 * future. Native features used: {@code ifGenerationMatch=0} for create, {@code Range} reads (suffix
 * ranges for {@link #getTail}), listing with {@code prefix}, {@code startOffset} and page tokens,
 * the {@code /batch/storage/v1} endpoint for deletes, and resumable uploads above {@link
 * GcsStoreSettings#resumableThresholdBytes()}. docs/reference/storage-gcs.md describes the mapping.
 */
public final class GcsObjectStore implements ObjectStore {
  /** Largest array a {@link #get} can return. */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  /** Page requests one {@link #list} call may make before it returns what it has. */
  private static final int MAX_LIST_REQUESTS = 16;

  private static final String CONTENT_TYPE = "application/octet-stream";

  private final Storage storage;
  private final GcsStoreSettings settings;
  private final Executor executor;
  private final AtomicBoolean closed = new AtomicBoolean();

  private GcsObjectStore(Storage storage, GcsStoreSettings settings, Executor executor) {
    this.storage = storage;
    this.settings = settings;
    this.executor = executor;
  }

  /**
   * Opens a store. Does no I/O except reading a credentials file; throws {@link LoamException}
   * INVALID if that file cannot be read.
   */
  public static GcsObjectStore open(GcsStoreSettings settings, StoreContext context) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(context, "context");
    return new GcsObjectStore(client(settings), settings, context.ioExecutor());
  }

  /** The settings this store was opened with. */
  public GcsStoreSettings settings() {
    return settings;
  }

  private static Storage client(GcsStoreSettings s) {
    HttpStorageOptions.Builder b = StorageOptions.http();
    s.host().ifPresent(b::setHost);
    s.projectId().ifPresent(b::setProjectId);
    switch (s.credentials()) {
      case NONE:
        b.setCredentials(NoCredentials.getInstance());
        break;
      case FILE:
        try (InputStream in = Files.newInputStream(s.credentialsFile().orElseThrow())) {
          b.setCredentials(readCredentials(in));
        } catch (IOException e) {
          // The message names the file, never its content.
          throw new LoamException(
              Kind.INVALID,
              "cannot read GCS credentials credentials-file=" + s.credentialsFile().orElseThrow(),
              null);
        }
        break;
      case DEFAULT:
        // The client resolves Application Default Credentials itself.
        break;
    }
    b.setRetrySettings(
        RetrySettings.newBuilder()
            .setMaxAttempts(s.maxAttempts())
            .setTotalTimeoutDuration(s.totalTimeout())
            .setInitialRetryDelayDuration(s.initialRetryDelay())
            .setRetryDelayMultiplier(2.0)
            .setMaxRetryDelayDuration(s.maxRetryDelay())
            .setJittered(true)
            .build());
    b.setTransportOptions(
        HttpTransportOptions.newBuilder()
            .setConnectTimeout((int) s.connectTimeout().toMillis())
            .setReadTimeout((int) s.readTimeout().toMillis())
            .build());
    return b.build().getService();
  }

  @SuppressWarnings("deprecation") // fromStream accepts any key type, which is what the URI means.
  private static GoogleCredentials readCredentials(InputStream in) throws IOException {
    return GoogleCredentials.fromStream(in);
  }

  // ---------------------------------------------------------------------------------------------
  // writes

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return write(key, bytes, true);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return write(key, bytes, false);
  }

  private CompletableFuture<Void> write(String key, byte[] bytes, boolean ifAbsent) {
    Op op = ifAbsent ? Op.CREATE : Op.PUT;
    return call(
        op,
        key,
        true,
        () -> {
          BlobInfo info =
              BlobInfo.newBuilder(BlobId.of(settings.bucket(), name(key)))
                  .setContentType(CONTENT_TYPE)
                  .build();
          if (bytes.length < settings.resumableThresholdBytes()) {
            // One multipart upload. ifGenerationMatch=0 makes GCS refuse with 412 if any live
            // generation exists: the native create-if-absent, and it makes the call idempotent,
            // so the client may retry it.
            if (ifAbsent) {
              storage.create(
                  info,
                  bytes,
                  BlobTargetOption.doesNotExist(),
                  BlobTargetOption.disableGzipContent());
            } else {
              storage.create(info, bytes, BlobTargetOption.disableGzipContent());
            }
          } else {
            resumableUpload(info, bytes, ifAbsent);
          }
          return null;
        });
  }

  /**
   * A resumable upload: a session opened with the precondition, then chunks of {@link
   * GcsStoreSettings#resumableChunkBytes()}; GCS checks {@code ifGenerationMatch} again when the
   * last chunk finalizes the object, so a racing create loses with 412 there.
   */
  private void resumableUpload(BlobInfo info, byte[] bytes, boolean ifAbsent) throws IOException {
    BlobWriteOption[] options =
        ifAbsent
            ? new BlobWriteOption[] {
              BlobWriteOption.doesNotExist(), BlobWriteOption.disableGzipContent()
            }
            : new BlobWriteOption[] {BlobWriteOption.disableGzipContent()};
    try (WriteChannel w = storage.writer(info, options)) {
      w.setChunkSize(settings.resumableChunkBytes());
      ByteBuffer buf = ByteBuffer.wrap(bytes).asReadOnlyBuffer();
      while (buf.hasRemaining()) {
        w.write(buf);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // reads

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return call(
        Op.READ,
        key,
        false,
        () -> {
          try (ReadChannel r = storage.reader(BlobId.of(settings.bucket(), name(key)))) {
            byte[] all = readUpTo(r, MAX_ARRAY + 1L);
            if (all.length > MAX_ARRAY) {
              throw new InvalidRangeException(
                  "object too large for one array, read it in ranges" + ObjectKeys.describe(key));
            }
            return all;
          }
        });
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    if (offset < 0 || length <= 0) {
      return invalidRange(key, "offset " + offset + " length " + length);
    }
    return call(
        Op.READ,
        key,
        false,
        () -> {
          try (ReadChannel r = storage.reader(BlobId.of(settings.bucket(), name(key)))) {
            r.seek(offset); // Range: bytes=offset-(offset+length-1)
            long end = offset + length;
            if (end > 0) {
              r.limit(end);
            }
            byte[] got = readUpTo(r, length);
            if (got.length == 0) {
              // The client turns 416 (offset at or past the end, or any range of an empty
              // object) into end-of-stream; a missing object would have failed with 404.
              throw new InvalidRangeException(
                  "offset " + offset + " at or beyond the end" + ObjectKeys.describe(key));
            }
            return got;
          }
        });
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    if (length <= 0) {
      return invalidRange(key, "tail length " + length);
    }
    return call(
        Op.READ,
        key,
        false,
        () -> {
          // Two requests: the public client does not expose the total size a suffix read returns
          // in Content-Range, so we read the metadata first and pin the read to its generation; a
          // concurrent overwrite then cannot mix two objects' size and bytes.
          Blob blob = storage.get(BlobId.of(settings.bucket(), name(key)));
          if (blob == null) {
            throw new ObjectNotFoundException("object not found" + ObjectKeys.describe(key));
          }
          long size = blob.getSize();
          if (size == 0) {
            return new TailRead(new byte[0], 0);
          }
          try (ReadChannel r =
              storage.reader(BlobId.of(settings.bucket(), name(key), blob.getGeneration()))) {
            int want = (int) Math.min(length, size);
            r.seek(-want); // Range: bytes=-want, a suffix range
            return new TailRead(readUpTo(r, want), size);
          }
        });
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    return call(
        Op.READ,
        key,
        false,
        () -> {
          Blob blob =
              storage.get(
                  BlobId.of(settings.bucket(), name(key)),
                  Storage.BlobGetOption.fields(BlobField.SIZE, BlobField.UPDATED));
          return Optional.ofNullable(blob).map(b -> info(key, b));
        });
  }

  /** Reads until end of stream or {@code max} bytes, into an array of exactly what was read. */
  private static byte[] readUpTo(ReadChannel r, long max) throws IOException {
    r.setChunkSize(0); // unbuffered: read straight into our array
    byte[] buf = new byte[(int) Math.min(max, 64 * 1024)];
    int n = 0;
    while (n < max) {
      if (n == buf.length) {
        buf =
            Arrays.copyOf(
                buf, (int) Math.min(max, Math.min((long) buf.length * 2, MAX_ARRAY + 1L)));
      }
      int got = r.read(ByteBuffer.wrap(buf, n, buf.length - n));
      if (got < 0) {
        break;
      }
      n += got;
    }
    return n == buf.length ? buf : Arrays.copyOf(buf, n);
  }

  // ---------------------------------------------------------------------------------------------
  // list

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter");
    Optional<InvalidRangeException> bad = ObjectKeys.checkMaxKeys(maxKeys, prefix);
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    if (closed.get()) {
      return closedFuture(prefix);
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (!ObjectKeys.isKeyChar(prefix.charAt(i))) {
        // No valid key can start with this prefix.
        return CompletableFuture.completedFuture(new ListPage(List.of(), Optional.empty()));
      }
    }
    return call(Op.LIST, prefix, false, () -> listPage(prefix, startAfter, maxKeys));
  }

  /**
   * GCS's {@code startOffset} is inclusive, the SPI's {@code startAfter} exclusive: we ask from
   * {@code startAfter} and drop an entry equal to it. We ask for one entry more than {@code
   * maxKeys} (GCS caps a page at 1000), so a full page usually knows whether more follow, and we
   * follow page tokens when GCS returns short pages, at most {@link #MAX_LIST_REQUESTS} requests
   * per call.
   */
  private ListPage listPage(String prefix, String startAfter, int maxKeys) {
    String namePrefix = settings.prefix() + prefix;
    List<BlobListOption> opts = new ArrayList<>();
    opts.add(BlobListOption.prefix(namePrefix));
    opts.add(BlobListOption.pageSize(Math.min(maxKeys + 1L, ObjectKeys.MAX_LIST_KEYS)));
    opts.add(BlobListOption.fields(BlobField.NAME, BlobField.SIZE, BlobField.UPDATED));
    if (!startAfter.isEmpty() && (settings.prefix() + startAfter).compareTo(namePrefix) > 0) {
      opts.add(BlobListOption.startOffset(settings.prefix() + startAfter));
    }
    List<ObjectInfo> found = new ArrayList<>();
    Page<Blob> page = storage.list(settings.bucket(), opts.toArray(new BlobListOption[0]));
    boolean more;
    for (int requests = 1; ; requests++) {
      for (Blob b : page.getValues()) {
        String key = b.getName().substring(settings.prefix().length());
        if (key.compareTo(startAfter) <= 0 || !ObjectKeys.isValid(key)) {
          // The startOffset entry itself, or an object that is not one of ours.
          continue;
        }
        found.add(info(key, b));
      }
      more = page.hasNextPage();
      if (found.size() >= maxKeys || !more || requests >= MAX_LIST_REQUESTS) {
        break;
      }
      page = page.getNextPage();
    }
    if (found.size() > maxKeys || (more && found.size() == maxKeys)) {
      List<ObjectInfo> head = found.subList(0, maxKeys);
      return new ListPage(head, Optional.of(head.get(maxKeys - 1).key()));
    }
    if (more && !found.isEmpty()) {
      // Request bound reached on short pages: hand back what we have; the caller continues.
      return new ListPage(found, Optional.of(found.get(found.size() - 1).key()));
    }
    if (more) {
      throw new StoreUnavailableException(
          "GCS returned " + MAX_LIST_REQUESTS + " pages without an object, prefix=" + prefix);
    }
    return new ListPage(found, Optional.empty());
  }

  private static ObjectInfo info(String key, Blob b) {
    OffsetDateTime updated = b.getUpdateTimeOffsetDateTime();
    return new ObjectInfo(
        key,
        b.getSize() == null ? 0 : b.getSize(),
        updated == null ? 0 : updated.toInstant().toEpochMilli());
  }

  // ---------------------------------------------------------------------------------------------
  // delete

  /** GCS accepts at most 100 calls per batch request; the client splits larger batches. */
  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    Optional<InvalidRangeException> bad = ObjectKeys.checkDeleteBatch(keys.size());
    if (bad.isPresent()) {
      return CompletableFuture.failedFuture(bad.get());
    }
    List<String> copy = List.copyOf(keys);
    if (closed.get()) {
      return closedFuture(copy.isEmpty() ? "" : copy.get(0));
    }
    List<DeleteFailure> failures = new ArrayList<>();
    List<String> valid = new ArrayList<>();
    for (String k : copy) {
      Optional<InvalidKeyException> problem = checkKey(k);
      if (problem.isPresent()) {
        failures.add(new DeleteFailure(k, problem.get()));
      } else {
        valid.add(k);
      }
    }
    if (valid.isEmpty()) {
      return CompletableFuture.completedFuture(List.copyOf(failures));
    }
    String first = valid.get(0);
    return call(
        Op.DELETE,
        first,
        false,
        () -> {
          // Storage.delete(Iterable) turns every per-item error into "false", the same answer as
          // "not found"; a batch with callbacks keeps the errors.
          StorageBatch batch = storage.batch();
          DeleteFailure[] perKey = new DeleteFailure[valid.size()];
          for (int i = 0; i < valid.size(); i++) {
            int index = i;
            String k = valid.get(i);
            batch
                .delete(BlobId.of(settings.bucket(), name(k)))
                .notify(
                    new BatchResult.Callback<Boolean, StorageException>() {
                      @Override
                      public void success(Boolean deletedOrFalseIfMissing) {
                        // false = 404 = already gone: a success for the SPI.
                      }

                      @Override
                      public void error(StorageException e) {
                        Throwable mapped = GcsErrors.map(e, Op.DELETE, k);
                        perKey[index] =
                            new DeleteFailure(
                                k,
                                mapped instanceof ObjectStoreException
                                    ? (ObjectStoreException) mapped
                                    : new StoreUnavailableException(
                                        "delete failed: " + e + ObjectKeys.describe(k), e));
                      }
                    });
          }
          batch.submit();
          List<DeleteFailure> all = new ArrayList<>(failures);
          for (DeleteFailure f : perKey) {
            if (f != null) {
              all.add(f);
            }
          }
          return List.copyOf(all);
        });
  }

  // ---------------------------------------------------------------------------------------------
  // close

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        storage.close();
      } catch (Exception e) {
        // Closing releases client resources only; nothing to report to the caller.
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // plumbing

  /** A blocking client call. */
  private interface Call<T> {
    T run() throws Exception;
  }

  /**
   * Runs {@code body} on the executor after the closed and key checks, mapping every failure in one
   * place. {@code key} is a key ({@code isKey}) or a prefix/first key for messages.
   */
  private <T> CompletableFuture<T> call(Op op, String key, boolean isKey, Call<T> body) {
    Objects.requireNonNull(key, "key");
    if (closed.get()) {
      return closedFuture(key);
    }
    if (op != Op.LIST && op != Op.DELETE) {
      Optional<InvalidKeyException> problem = checkKey(key);
      if (problem.isPresent()) {
        return CompletableFuture.failedFuture(problem.get());
      }
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      executor.execute(
          () -> {
            if (closed.get()) {
              result.completeExceptionally(closedException(key));
              return;
            }
            try {
              result.complete(body.run());
            } catch (Throwable t) {
              result.completeExceptionally(GcsErrors.map(t, op, key));
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(GcsErrors.map(e, op, key));
    }
    return result;
  }

  /** Key rules, plus GCS's 1024-byte name limit once the store prefix is added. */
  private Optional<InvalidKeyException> checkKey(String key) {
    Optional<InvalidKeyException> problem = ObjectKeys.check(key);
    if (problem.isPresent()) {
      return problem;
    }
    if (settings.prefix().length() + key.length() > GcsStoreSettings.MAX_OBJECT_NAME_BYTES) {
      return Optional.of(
          new InvalidKeyException(
              "key too long for GCS's 1024-byte object names with store prefix "
                  + settings.prefix()
                  + ObjectKeys.describe(key)));
    }
    return Optional.empty();
  }

  private String name(String key) {
    return settings.prefix() + key;
  }

  private static <T> CompletableFuture<T> invalidRange(String key, String what) {
    Optional<InvalidKeyException> problem = ObjectKeys.check(key);
    if (problem.isPresent()) {
      return CompletableFuture.failedFuture(problem.get());
    }
    return CompletableFuture.failedFuture(
        new InvalidRangeException("invalid range: " + what + ObjectKeys.describe(key)));
  }

  private static <T> CompletableFuture<T> closedFuture(String key) {
    return CompletableFuture.failedFuture(closedException(key));
  }

  private static StoreUnavailableException closedException(String key) {
    return new StoreUnavailableException("store is closed" + ObjectKeys.describe(key));
  }
}
