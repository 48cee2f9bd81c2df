package dev.loam.kms.gcp;

import com.google.api.core.ApiFuture;
import com.google.api.core.ApiFutureCallback;
import com.google.api.core.ApiFutures;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.common.util.concurrent.MoreExecutors;
import dev.loam.error.LoamException;
import dev.loam.kms.KmsKeyExistsException;
import dev.loam.kms.KmsKeyNotFoundException;
import dev.loam.kms.KmsUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.zip.CRC32C;

/**
 * What {@link GcpKeyManagementService} needs around the Cloud KMS client: its futures as
 * CompletableFutures, its status codes as the SPI's typed errors, version numbers from version
 * names, and the CRC-32C of the checksum fields.
 */
final class CloudKmsCalls {
  private CloudKmsCalls() {}

  /** The client's future as a CompletableFuture, completed on the thread that completes it. */
  static <T> CompletableFuture<T> of(ApiFuture<T> f) {
    CompletableFuture<T> out = new CompletableFuture<>();
    ApiFutures.addCallback(
        f,
        new ApiFutureCallback<T>() {
          @Override
          public void onFailure(Throwable t) {
            out.completeExceptionally(t);
          }

          @Override
          public void onSuccess(T v) {
            out.complete(v);
          }
        },
        MoreExecutors.directExecutor());
    return out;
  }

  /** The cause inside completion and execution wrappers. */
  static Throwable unwrapped(Throwable e) {
    Throwable c = e;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  /** Maps client failures to the SPI's typed errors, naming the namespace and its key. */
  static Throwable map(Throwable e, String namespace, String keyName) {
    Throwable c = unwrapped(e);
    if (c instanceof LoamException) {
      return c;
    }
    String who = " namespace=" + namespace + " key=" + keyName;
    if (c instanceof ApiException a) {
      StatusCode.Code code = a.getStatusCode().getCode();
      switch (code) {
        case NOT_FOUND:
          return new KmsKeyNotFoundException("kms namespace key not found" + who, c);
        case ALREADY_EXISTS:
          return new KmsKeyExistsException("kms namespace key already exists" + who, c);
        case UNAVAILABLE:
        case DEADLINE_EXCEEDED:
        case RESOURCE_EXHAUSTED:
        case ABORTED:
        case INTERNAL:
        case UNKNOWN:
          return new KmsUnavailableException("kms unavailable code=" + code + who, c);
        default:
          return new LoamException(
              LoamException.Kind.INTERNAL,
              "kms request refused code=" + code + " message=" + a.getMessage() + who,
              c);
      }
    }
    return new LoamException(LoamException.Kind.INTERNAL, "kms call failed" + who, c);
  }

  /** The version number in a crypto key version name ({@code …/cryptoKeyVersions/<n>}). */
  static int versionOf(String versionName) {
    String n = versionName.substring(versionName.lastIndexOf('/') + 1);
    try {
      int v = Integer.parseInt(n);
      if (v >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new LoamException(
        LoamException.Kind.INTERNAL, "kms key version name not numbered version=" + versionName);
  }

  /** CRC-32C, as Cloud KMS's checksum fields carry it. */
  static long crc32c(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return c.getValue();
  }
}
