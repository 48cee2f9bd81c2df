package dev.loam.storage.s3;

import dev.loam.spi.store.InvalidKeyException;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.store.ObjectKeys;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The one place where S3 and SDK failures become {@link ObjectStoreException}s
 * (docs/reference/storage-s3.md, "Error mapping"). Everything that is not an SDK failure (a bug in
 * this module, an assertion) is passed through unchanged rather than disguised as a store failure.
 */
final class S3Errors {
  private S3Errors() {}

  /** What the failed call was, which decides how an ambiguous failure is reported. */
  enum Op {
    /** create-if-absent: 412 means exists. */
    CREATE(true),
    /** unconditional write. */
    PUT(true),
    /** get, ranged get, tail, head, list. */
    READ(false),
    /** the DeleteObjects request as a whole (idempotent, so a retry is harmless). */
    DELETE(false),
    /**
     * starting a multipart upload or uploading a part: no object is visible before the complete, so
     * any failure leaves the key as it was.
     */
    PART(false);

    final boolean write;

    Op(boolean write) {
      this.write = write;
    }
  }

  /**
   * Maps {@code failure} of operation {@code op} on {@code key}. {@code attempts} matters for
   * create: a 412 on a retry after an attempt that got no answer may be our own earlier write, so
   * it is reported as outcome unknown ({@link AmbiguousPreconditionFailure}), not as exists; the
   * store then reads the object to decide.
   */
  static Throwable map(Throwable failure, Op op, String key, Attempts attempts, boolean closed) {
    Throwable t = unwrap(failure);
    if (t instanceof ObjectStoreException) {
      return t;
    }
    String where = ObjectKeys.describe(key);
    if (t instanceof AwsServiceException e) {
      int status = e.statusCode();
      String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
      String what = " (http " + status + (code == null ? "" : " " + code) + ")";
      if (status == 412 && op == Op.CREATE) {
        if (attempts.unanswered()) {
          return new AmbiguousPreconditionFailure(
              "create found the key taken on SDK attempt "
                  + attempts.count()
                  + " after an attempt that got no answer; that attempt may have written it"
                  + what
                  + where,
              e);
        }
        return new ObjectExistsException("object already exists" + what + where, e);
      }
      if (status == 404 && !"NoSuchBucket".equals(code)) {
        return new ObjectNotFoundException("no such object" + what + where, e);
      }
      if (status == 416) {
        return new InvalidRangeException("range not satisfiable" + what + where, e);
      }
      if ("KeyTooLongError".equals(code)) {
        return new InvalidKeyException("key too long for S3" + what + where, e);
      }
      // 409 ConditionalRequestConflict: another conditional write of the key is in flight; ours
      // did not happen, and a retry either writes or finds the key taken. Throttling (503
      // SlowDown, 429), 500 and other 5xx: S3 did not apply the request. 403, NoSuchBucket and
      // other 4xx are configuration faults; they do not change anything either, and "unavailable"
      // is the only kind that says "nothing changed" — the message names the code.
      return new StoreUnavailableException("S3 request failed" + what + where, e);
    }
    if (t instanceof SdkClientException || t instanceof SdkException) {
      if (!op.write || surelyNotSent(t) || closed) {
        return new StoreUnavailableException(
            (closed ? "store is closed" : "S3 unreachable") + ": " + t.getMessage() + where, t);
      }
      // A timeout or a broken connection after the request left: S3 may have applied the write.
      return new StoreOutcomeUnknownException(
          "S3 write outcome unknown: " + t.getMessage() + where, t);
    }
    if (closed && (t instanceof IllegalStateException || t instanceof CancellationException)) {
      return new StoreUnavailableException("store is closed" + where, t);
    }
    return t;
  }

  /**
   * The per-key failure for one {@code <Error>} of a DeleteObjects response, or empty when the key
   * counts as deleted ({@code NoSuchKey}: the SPI treats a missing key as deleted).
   */
  static Optional<ObjectStoreException> deleteFailure(String code, String message, String key) {
    if ("NoSuchKey".equals(code)) {
      return Optional.empty();
    }
    return Optional.of(
        new StoreUnavailableException(
            "S3 could not delete the key ("
                + code
                + ": "
                + message
                + ")"
                + ObjectKeys.describe(key)));
  }

  /** Whether {@code t} is a 412 that may have been caused by the same create's earlier attempt. */
  static boolean isAmbiguousPreconditionFailure(Throwable t) {
    return t instanceof AmbiguousPreconditionFailure;
  }

  /** Outcome unknown, from a 412 after an unanswered attempt of the same create. */
  static final class AmbiguousPreconditionFailure extends StoreOutcomeUnknownException {
    private static final long serialVersionUID = 1L;

    AmbiguousPreconditionFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The failure behind CompletableFuture wrappers. */
  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * Whether the request certainly never reached a server: no connection could be made, or no pooled
   * connection was free in time. Only then is a failed write known not to have happened.
   */
  private static boolean surelyNotSent(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ConnectException
          || c instanceof UnknownHostException
          || c instanceof NoRouteToHostException) {
        return true;
      }
      String m = c.getMessage();
      if (m != null && m.contains("Acquire operation took longer than")) {
        return true;
      }
    }
    return false;
  }
}
