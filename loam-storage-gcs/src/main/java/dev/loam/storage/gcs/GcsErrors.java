package dev.loam.storage.gcs;

import com.google.cloud.BaseServiceException;
import com.google.cloud.storage.StorageException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.store.ObjectKeys;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;

/**
 * The one place where GCS client failures become {@link ObjectStoreException}s
 * (docs/reference/storage-gcs.md, "Error mapping").
 *
 * <p>The client reports HTTP failures as {@link StorageException} with the status code, and I/O
 * failures as a {@link StorageException} with code 0 whose cause is the {@link IOException}; the
 * read and write channels wrap either in further {@link IOException}s. We walk the cause chain to
 * the first of them.
 */
final class GcsErrors {
  private GcsErrors() {}

  /** What the failed call was, since the same failure means different things for each. */
  enum Op {
    CREATE,
    PUT,
    READ,
    LIST,
    DELETE;

    boolean isWrite() {
      return this == CREATE || this == PUT;
    }
  }

  /**
   * The store failure for {@code t}, thrown by the client during {@code op} on {@code key} (a key
   * or prefix). Throwables that are not I/O or service failures are bugs and are returned as they
   * are, not disguised as store failures.
   */
  static Throwable map(Throwable t, Op op, String key) {
    String where = " op=" + op.name().toLowerCase(Locale.ROOT) + ObjectKeys.describe(key);
    BaseServiceException status = null;
    IOException deepestIo = null;
    boolean serviceFailure = false;
    Throwable cur = t;
    for (int depth = 0; cur != null && depth < 16; depth++, cur = cur.getCause()) {
      if (cur instanceof ObjectStoreException) {
        return cur;
      }
      if (cur instanceof RejectedExecutionException) {
        return new StoreUnavailableException("store executor rejected the call" + where, cur);
      }
      if (cur instanceof BaseServiceException) {
        serviceFailure = true;
        if (status == null && ((BaseServiceException) cur).getCode() > 0) {
          status = (BaseServiceException) cur;
        }
      }
      if (cur instanceof IOException) {
        deepestIo = (IOException) cur;
      }
    }
    if (status != null) {
      // An HTTP answer from GCS, possibly wrapped by a channel in IOExceptions.
      return mapStatus(status, op, where);
    }
    if (deepestIo != null) {
      return mapIo(t, deepestIo, op, where);
    }
    if (serviceFailure) {
      return new StoreUnavailableException("GCS call failed: " + t + where, t);
    }
    // Neither a service nor an I/O failure: a bug (ours or the client's). Pass it through.
    return t;
  }

  private static ObjectStoreException mapStatus(BaseServiceException e, Op op, String where) {
    int code = e.getCode();
    String what = "GCS status " + code + " reason=" + e.getReason() + where;
    switch (code) {
      case 412:
      case 409:
        if (op == Op.CREATE) {
          // ifGenerationMatch=0 failed: the name is taken. (409 is what GCS answers when two
          // uploads of one name race inside the service.)
          return new ObjectExistsException("object exists," + what, e);
        }
        return new StoreUnavailableException("precondition or conflict," + what, e);
      case 404:
        if (op == Op.READ) {
          return new ObjectNotFoundException("object not found," + what, e);
        }
        // Writes and listings only get 404 when the bucket is missing.
        return new StoreUnavailableException("bucket not found," + what, e);
      case 416:
        return new InvalidRangeException("range not satisfiable," + what, e);
      default:
        // 408, 429, 5xx: transient, and GCS rejected the request before acting on it. 400,
        // 401, 403 and the rest are configuration problems (credentials, bucket policy) that an
        // operator fixes; the store can only report them as unavailable.
        return new StoreUnavailableException("GCS unavailable," + what, e);
    }
  }

  private static ObjectStoreException mapIo(Throwable top, IOException io, Op op, String where) {
    String what = io.getClass().getSimpleName() + ": " + io.getMessage() + where;
    boolean neverSent =
        io instanceof ConnectException
            || io instanceof NoRouteToHostException
            || io instanceof UnknownHostException
            || (io instanceof SocketTimeoutException
                && String.valueOf(io.getMessage()).toLowerCase(Locale.ROOT).contains("connect"));
    if (op.isWrite() && !neverSent) {
      // The request may have reached GCS and been applied before the response was lost (read
      // timeout, reset, truncated response): we cannot tell.
      return new StoreOutcomeUnknownException("write outcome unknown, " + what, top);
    }
    if (io instanceof InterruptedIOException && !(io instanceof SocketTimeoutException)) {
      return new StoreUnavailableException("interrupted, " + what, top);
    }
    return new StoreUnavailableException("GCS unreachable, " + what, top);
  }
}
