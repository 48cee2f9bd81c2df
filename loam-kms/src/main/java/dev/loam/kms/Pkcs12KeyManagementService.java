package dev.loam.kms;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A {@link KeyManagementService} on a local PKCS#12 key store file (the JDK's {@link KeyStore}),
 * for single-host deployments, development and tests. Each namespace key version is an AES-256
 * secret key entry protected by the store password; a destroyed namespace keeps only a marker
 * entry, so later calls fail with {@link KeyDestroyedException} rather than "not found". Wrapped
 * keys use the format in docs/reference/kms.md.
 *
 * <p>Every operation runs on one thread of this handle and holds an exclusive lock on {@code
 * <file>.lock}, re-reading the file when it changed, so several handles (also in other processes on
 * the host) see each other's writes. Writes replace the file atomically (temporary file, fsync,
 * rename). Destroying removes the key material from the file; copies in backups or in freed disk
 * blocks are outside its reach (docs/security.md).
 */
public final class Pkcs12KeyManagementService implements KeyManagementService {
  static final int FORMAT = 1;
  static final int NONCE = 12;
  static final int TAG = 16;
  static final int HEADER = 1 + 4 + NONCE;
  private static final String PREFIX = "loam.";

  private final Path file;
  private final Path lockFile;
  private final char[] password;
  private final SecureRandom random = new SecureRandom();
  private final ExecutorService executor;
  private KeyStore cached;
  private Object cachedStamp;
  private volatile boolean closed;

  /**
   * Opens (and on first write creates) the key store at {@code file}.
   *
   * @param password protects the store and every entry; copied
   * @throws NullPointerException if an argument is null
   */
  public Pkcs12KeyManagementService(Path file, char[] password) {
    this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
    this.lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
    this.password = Objects.requireNonNull(password, "password").clone();
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "loam-kms-pkcs12");
              t.setDaemon(true);
              return t;
            });
  }

  private static String alias(String namespace, String suffix) {
    // PKCS#12 aliases are case-insensitive in the JDK: hex keeps "A" and "a" apart.
    return PREFIX
        + HexFormat.of().formatHex(namespace.getBytes(StandardCharsets.UTF_8))
        + "."
        + suffix;
  }

  private interface Op<T> {
    T run(KeyStore ks) throws Exception;
  }

  private <T> CompletableFuture<T> submit(String namespace, boolean writes, Op<T> op) {
    Objects.requireNonNull(namespace, "namespace");
    LoamException bad = KmsArguments.checkNamespace(namespace);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    if (closed) {
      return CompletableFuture.failedFuture(closedError(namespace));
    }
    try {
      return CompletableFuture.supplyAsync(() -> locked(namespace, writes, op), executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(closedError(namespace));
    }
  }

  private KmsUnavailableException closedError(String namespace) {
    return new KmsUnavailableException("kms closed namespace=" + namespace + " file=" + file);
  }

  private <T> T locked(String namespace, boolean writes, Op<T> op) {
    try (FileChannel lc =
            FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = lc.lock()) {
      KeyStore ks = load();
      T result = op.run(ks);
      if (writes) {
        store(ks);
      }
      return result;
    } catch (LoamException e) {
      throw e;
    } catch (IOException e) {
      throw new KmsUnavailableException(
          "kms key store i/o failed namespace=" + namespace + " file=" + file + " cause=" + e, e);
    } catch (Exception e) {
      throw new LoamException(
          LoamException.Kind.INTERNAL,
          "kms key store failed namespace=" + namespace + " file=" + file + " cause=" + e,
          e);
    }
  }

  private KeyStore load() throws IOException, GeneralSecurityException {
    Object stamp;
    byte[] bytes;
    try {
      stamp = Files.readAttributes(file, "size,lastModifiedTime,fileKey").toString();
      if (cached != null && stamp.equals(cachedStamp)) {
        return cached;
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, password);
      return ks;
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try {
      ks.load(new ByteArrayInputStream(bytes), password);
    } catch (IOException e) {
      throw new CorruptionException(
          "kms key store unreadable (damaged or wrong password) file=" + file, e);
    }
    cached = ks;
    cachedStamp = stamp;
    return ks;
  }

  private void store(KeyStore ks) throws IOException, GeneralSecurityException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ks.store(out, password);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel c =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(out.toByteArray());
      while (b.hasRemaining()) {
        c.write(b);
      }
      c.force(true);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    cached = null; // re-read on next use, with the new stamp
  }

  private KeyStore.ProtectionParameter protection() {
    return new KeyStore.PasswordProtection(password);
  }

  /** The highest version present; 0 if none. Fails if the namespace's key was destroyed. */
  private int currentVersion(KeyStore ks, String namespace) throws GeneralSecurityException {
    if (ks.containsAlias(alias(namespace, "destroyed"))) {
      throw new KeyDestroyedException(namespace, "kms:" + namespace);
    }
    int v = 0;
    String prefix = alias(namespace, "v");
    for (String a : Collections.list(ks.aliases())) {
      if (a.startsWith(prefix)) {
        v = Math.max(v, Integer.parseInt(a.substring(prefix.length())));
      }
    }
    return v;
  }

  private int existing(KeyStore ks, String namespace) throws GeneralSecurityException {
    int v = currentVersion(ks, namespace);
    if (v == 0) {
      throw new KmsKeyNotFoundException("kms namespace key not found namespace=" + namespace);
    }
    return v;
  }

  private SecretKey version(KeyStore ks, String namespace, int v) throws GeneralSecurityException {
    KeyStore.Entry e = ks.getEntry(alias(namespace, "v" + v), protection());
    if (!(e instanceof KeyStore.SecretKeyEntry s)) {
      return null;
    }
    return s.getSecretKey();
  }

  private void addVersion(KeyStore ks, String namespace, int v) throws GeneralSecurityException {
    byte[] m = new byte[32];
    random.nextBytes(m);
    ks.setEntry(
        alias(namespace, "v" + v),
        new KeyStore.SecretKeyEntry(new SecretKeySpec(m, "AES")),
        protection());
    Arrays.fill(m, (byte) 0);
  }

  @Override
  public CompletableFuture<KeyVersion> create(String namespace) {
    return submit(
        namespace,
        true,
        ks -> {
          if (ks.containsAlias(alias(namespace, "destroyed"))
              || currentVersion(ks, namespace) > 0) {
            throw new KmsKeyExistsException(
                "kms namespace key already exists namespace=" + namespace);
          }
          addVersion(ks, namespace, 1);
          return new KeyVersion(namespace, 1);
        });
  }

  @Override
  public CompletableFuture<KeyVersion> current(String namespace) {
    return submit(namespace, false, ks -> new KeyVersion(namespace, existing(ks, namespace)));
  }

  @Override
  public CompletableFuture<byte[]> wrap(String namespace, byte[] plaintext) {
    Objects.requireNonNull(plaintext, "plaintext");
    LoamException bad =
        namespace == null ? null : KmsArguments.checkPlaintext(namespace, plaintext);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    return submit(
        namespace,
        false,
        ks -> {
          int v = existing(ks, namespace);
          SecretKey k = version(ks, namespace, v);
          byte[] out = new byte[HEADER + plaintext.length + TAG];
          out[0] = FORMAT;
          ByteBuffer.wrap(out).putInt(1, v);
          byte[] nonce = new byte[NONCE];
          random.nextBytes(nonce);
          System.arraycopy(nonce, 0, out, 5, NONCE);
          Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
          c.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(TAG * 8, nonce));
          c.updateAAD(aad(namespace, v));
          c.doFinal(plaintext, 0, plaintext.length, out, HEADER);
          return out;
        });
  }

  static byte[] aad(String namespace, int version) {
    byte[] ns = namespace.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(4 + 2 + ns.length + 4)
        .putInt(0x4C4B4D53) // "LKMS"
        .putShort((short) ns.length)
        .put(ns)
        .putInt(version)
        .array();
  }

  @Override
  public CompletableFuture<byte[]> unwrap(String namespace, byte[] wrapped) {
    Objects.requireNonNull(wrapped, "wrapped");
    Function<String, CorruptionException> corrupt =
        why ->
            new CorruptionException(
                "kms wrapped key does not unwrap " + why + " namespace=" + namespace);
    return submit(
        namespace,
        false,
        ks -> {
          int current = existing(ks, namespace);
          if (wrapped.length < HEADER + 1 + TAG || wrapped[0] != FORMAT) {
            throw corrupt.apply("(format or length) length=" + wrapped.length);
          }
          int v = ByteBuffer.wrap(wrapped).getInt(1);
          SecretKey k = v >= 1 && v <= current ? version(ks, namespace, v) : null;
          if (k == null) {
            throw corrupt.apply("(no such key version) version=" + v);
          }
          Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
          c.init(Cipher.DECRYPT_MODE, k, new GCMParameterSpec(TAG * 8, wrapped, 5, NONCE));
          c.updateAAD(aad(namespace, v));
          try {
            return c.doFinal(wrapped, HEADER, wrapped.length - HEADER);
          } catch (AEADBadTagException e) {
            throw corrupt.apply("(authentication failed) version=" + v);
          }
        });
  }

  @Override
  public CompletableFuture<KeyVersion> rotate(String namespace) {
    return submit(
        namespace,
        true,
        ks -> {
          int v = existing(ks, namespace) + 1;
          addVersion(ks, namespace, v);
          return new KeyVersion(namespace, v);
        });
  }

  @Override
  public CompletableFuture<Void> destroy(String namespace) {
    return submit(
        namespace,
        true,
        ks -> {
          if (ks.containsAlias(alias(namespace, "destroyed"))) {
            return null;
          }
          int v = existing(ks, namespace);
          for (int i = 1; i <= v; i++) {
            ks.deleteEntry(alias(namespace, "v" + i));
          }
          // A marker, not key material: remembers that the key existed and was destroyed.
          ks.setEntry(
              alias(namespace, "destroyed"),
              new KeyStore.SecretKeyEntry(new SecretKeySpec(new byte[16], "AES")),
              protection());
          return null;
        });
  }

  @Override
  public void close() {
    closed = true;
    executor.shutdown();
  }

  @Override
  public String toString() {
    return "Pkcs12KeyManagementService[file=" + file + "]";
  }
}
