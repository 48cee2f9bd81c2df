package dev.loam.sim;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KeyVersion;
import dev.loam.kms.KmsArguments;
import dev.loam.kms.KmsKeyExistsException;
import dev.loam.kms.KmsKeyNotFoundException;
import dev.loam.kms.KmsUnavailableException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The simulation's key-management service: master keys in memory, drawn from the seed, so a run
 * with an encrypted namespace replays exactly. It really encrypts: {@code wrap} is the 4-byte key
 * version, a 12-byte nonce drawn from the seed, and AES-256-GCM under that version's master key
 * with the namespace as associated data, one key set per namespace. Every call answers at once (the
 * simulated KMS is never slow; the tests of a slow KMS run on real nodes). Thread-safe (the
 * conformance kit calls it from several threads), though a simulation has only one.
 */
public final class SimKms implements KeyManagementService {
  private record Keys(List<byte[]> versions, boolean destroyed) {}

  private static final int NONCE = 12;

  private final SplittableRandom random;
  private final Map<String, Keys> keys = new HashMap<>();
  private boolean closed;

  public SimKms(SplittableRandom random) {
    this.random = random;
  }

  private synchronized <T> CompletableFuture<T> call(String ns, java.util.function.Supplier<T> op) {
    if (closed) {
      return CompletableFuture.failedFuture(new KmsUnavailableException("kms closed"));
    }
    LoamException bad = KmsArguments.checkNamespace(ns);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    try {
      return CompletableFuture.completedFuture(op.get());
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private Keys live(String ns) {
    Keys k = keys.get(ns);
    if (k == null) {
      throw new KmsKeyNotFoundException("no master key namespace=" + ns);
    }
    if (k.destroyed()) {
      throw new KeyDestroyedException(ns, ns + "/master");
    }
    return k;
  }

  private byte[] fresh() {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i += 8) {
      long v = random.nextLong();
      for (int j = 0; j < 8; j++) {
        b[i + j] = (byte) (v >>> (8 * j));
      }
    }
    return b;
  }

  @Override
  public CompletableFuture<KeyVersion> create(String ns) {
    return call(
        ns,
        () -> {
          if (keys.containsKey(ns)) {
            throw new KmsKeyExistsException("master key exists namespace=" + ns);
          }
          List<byte[]> v = new ArrayList<>();
          v.add(fresh());
          keys.put(ns, new Keys(v, false));
          return new KeyVersion(ns, 1);
        });
  }

  @Override
  public CompletableFuture<KeyVersion> current(String ns) {
    return call(ns, () -> new KeyVersion(ns, live(ns).versions().size()));
  }

  @Override
  public CompletableFuture<byte[]> wrap(String ns, byte[] plaintext) {
    LoamException bad = KmsArguments.checkPlaintext(ns, plaintext);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    return call(
        ns,
        () -> {
          List<byte[]> v = live(ns).versions();
          int version = v.size();
          byte[] nonce = Arrays.copyOf(fresh(), NONCE);
          byte[] sealed = crypt(Cipher.ENCRYPT_MODE, v.get(version - 1), nonce, plaintext, ns);
          return ByteBuffer.allocate(4 + NONCE + sealed.length)
              .putInt(version)
              .put(nonce)
              .put(sealed)
              .array();
        });
  }

  @Override
  public CompletableFuture<byte[]> unwrap(String ns, byte[] wrapped) {
    return call(
        ns,
        () -> {
          List<byte[]> v = live(ns).versions();
          if (wrapped == null || wrapped.length < 4 + NONCE + 16 + 1) {
            throw new CorruptionException("sim kms wrapped key too short namespace=" + ns);
          }
          int version = ByteBuffer.wrap(wrapped).getInt();
          if (version < 1 || version > v.size()) {
            throw new CorruptionException(
                "sim kms wrapped key names an unknown version namespace=" + ns);
          }
          return crypt(
              Cipher.DECRYPT_MODE,
              v.get(version - 1),
              Arrays.copyOfRange(wrapped, 4, 4 + NONCE),
              Arrays.copyOfRange(wrapped, 4 + NONCE, wrapped.length),
              ns);
        });
  }

  @Override
  public CompletableFuture<KeyVersion> rotate(String ns) {
    return call(
        ns,
        () -> {
          List<byte[]> v = live(ns).versions();
          v.add(fresh());
          return new KeyVersion(ns, v.size());
        });
  }

  @Override
  public CompletableFuture<Void> destroy(String ns) {
    return call(
        ns,
        () -> {
          Keys k = keys.get(ns);
          if (k == null) {
            throw new KmsKeyNotFoundException("no master key namespace=" + ns);
          }
          k.versions().forEach(b -> Arrays.fill(b, (byte) 0));
          keys.put(ns, new Keys(List.of(), true));
          return null;
        });
  }

  @Override
  public synchronized void close() {
    closed = true;
  }

  private static byte[] crypt(int mode, byte[] key, byte[] nonce, byte[] input, String ns) {
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
      c.updateAAD(ns.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return c.doFinal(input);
    } catch (GeneralSecurityException e) {
      if (mode == Cipher.DECRYPT_MODE) {
        throw new CorruptionException(
            "sim kms wrapped key does not unwrap under this namespace namespace=" + ns, e);
      }
      throw new LoamException(
          LoamException.Kind.INTERNAL, "sim kms wrap failed namespace=" + ns, e);
    }
  }
}
