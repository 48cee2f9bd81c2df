package dev.loam.core.crypto;

import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KmsKeyExistsException;
import dev.loam.kms.KmsKeyNotFoundException;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.KeyResolver;
import dev.loam.wal.ulid.Ulid;
import dev.loam.wal.ulid.UlidGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node's key-encryption keys (docs/security.md, "Data at rest"): it creates a namespace's keys,
 * stores them wrapped by the namespace's master key at {@code
 * ns/<cluster_id>/<namespace>/keys/<ulid>.key} (docs/formats/namespace-key-v1.md), and unwraps each
 * through the KMS at most once per {@code ttl} (an hour in production), holding it in memory only.
 * It is the {@link KeyResolver} the read paths open sealed chunks with.
 *
 * <p>Every KMS call of one namespace is bounded by {@code kmsTimeout} and touches no state of other
 * namespaces: an unavailable or slow KMS (or master key) fails that namespace's calls with a {@link
 * LoamException} of kind UNAVAILABLE naming it, while other namespaces go on. A destroyed master
 * key fails with {@link KeyDestroyedException} naming the namespace. Thread-safe; concurrent misses
 * for one key share one fetch.
 */
public final class NamespaceKeyRing implements KeyResolver {
  private record Cached(CompletableFuture<KeyEncryptionKey> key, long expiresAtMillis) {}

  private record Current(String keyId, long expiresAtMillis) {}

  private final ObjectStore store;
  private final KeyManagementService kms;
  private final String clusterId;
  private final InstantSource clock;
  private final long ttlMillis;
  private final Duration kmsTimeout;
  private final SecureRandom random;
  private final UlidGenerator ulids;
  private final ConcurrentHashMap<String, Cached> byId = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Current> currentIds = new ConcurrentHashMap<>();

  /**
   * @param ttl how long an unwrapped key is held before the KMS is asked again
   * @param kmsTimeout the longest one namespace's key fetch may take
   * @param random key material and key ULIDs ({@code SystemDrivers.secureRandom()})
   * @throws NullPointerException if an argument is null
   */
  public NamespaceKeyRing(
      ObjectStore store,
      KeyManagementService kms,
      String clusterId,
      InstantSource clock,
      Duration ttl,
      Duration kmsTimeout,
      SecureRandom random) {
    this.store = Objects.requireNonNull(store, "store");
    this.kms = Objects.requireNonNull(kms, "kms");
    this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ttlMillis = ttl.toMillis();
    this.kmsTimeout = Objects.requireNonNull(kmsTimeout, "kmsTimeout");
    this.random = Objects.requireNonNull(random, "random");
    this.ulids = new UlidGenerator(random);
  }

  /** The id sealed chunks carry for a key: {@code <namespace>/<ulid>}. */
  public static String keyId(String namespace, Ulid ulid) {
    return namespace + "/" + ulid;
  }

  /**
   * Starts a new key-encryption key for the namespace, creating its master key in the KMS if it has
   * none: used when a namespace is given a key (at creation or later) and to rotate. The new key is
   * the namespace's current key from now on; older keys still open what they sealed.
   */
  public CompletableFuture<KeyEncryptionKey> addKey(String namespace) {
    Objects.requireNonNull(namespace, "namespace");
    Ulid ulid = ulids.next(clock.millis());
    String id = keyId(namespace, ulid);
    byte[] material = new byte[KeyEncryptionKey.LENGTH];
    random.nextBytes(material);
    KeyEncryptionKey kek = new KeyEncryptionKey(id, material);
    CompletableFuture<KeyEncryptionKey> f =
        kms.current(namespace)
            .handle(
                (v, e) -> {
                  if (e != null && cause(e) instanceof KmsKeyNotFoundException) {
                    return kms.create(namespace)
                        .handle(
                            (c, ce) -> {
                              if (ce != null && !(cause(ce) instanceof KmsKeyExistsException)) {
                                throw new CompletionException(cause(ce));
                              }
                              return c;
                            });
                  }
                  if (e != null) {
                    throw new CompletionException(cause(e));
                  }
                  return CompletableFuture.completedFuture(v);
                })
            .thenCompose(x -> x)
            .thenCompose(v -> kms.wrap(namespace, material))
            .thenCompose(
                wrapped ->
                    store.create(
                        NamespaceKeyFile.key(clusterId, namespace, ulid),
                        NamespaceKeyFile.encode(
                            new NamespaceKeyFile.Contents(namespace, ulid, wrapped))))
            .thenApply(
                v -> {
                  Arrays.fill(material, (byte) 0);
                  long until = clock.millis() + ttlMillis;
                  byId.put(id, new Cached(CompletableFuture.completedFuture(kek), until));
                  currentIds.put(namespace, new Current(id, until));
                  return kek;
                });
    return bounded(f, namespace, id);
  }

  /**
   * The namespace's current key (the newest), or empty if the namespace has none (its chunks are
   * written plain).
   */
  public CompletableFuture<Optional<KeyEncryptionKey>> currentKey(String namespace) {
    Objects.requireNonNull(namespace, "namespace");
    Current c = currentIds.get(namespace);
    if (c != null && c.expiresAtMillis() > clock.millis()) {
      return resolveAsync(c.keyId()).thenApply(Optional::of);
    }
    return newest(namespace, "", null)
        .thenCompose(
            latest -> {
              if (latest == null) {
                return CompletableFuture.completedFuture(Optional.<KeyEncryptionKey>empty());
              }
              String id = keyId(namespace, latest);
              currentIds.put(namespace, new Current(id, clock.millis() + ttlMillis));
              return resolveAsync(id).thenApply(Optional::of);
            });
  }

  private CompletableFuture<Ulid> newest(String namespace, String startAfter, Ulid best) {
    String prefix = NamespaceKeyFile.prefix(clusterId, namespace);
    return store
        .list(prefix, startAfter, 1000)
        .thenCompose(
            (ListPage page) -> {
              Ulid b = best;
              for (ObjectInfo o : page.objects()) {
                String name = o.key().substring(prefix.length());
                if (name.endsWith(".key") && name.length() == 26 + 4) {
                  Ulid u = Ulid.parse(name.substring(0, 26));
                  if (b == null || u.compareTo(b) > 0) {
                    b = u;
                  }
                }
              }
              return page.nextStartAfter().isPresent()
                  ? newest(namespace, page.nextStartAfter().get(), b)
                  : CompletableFuture.completedFuture(b);
            });
  }

  /**
   * The key with this id, from memory while fresh, else fetched from the store and unwrapped by the
   * KMS (bounded by the KMS timeout).
   */
  public CompletableFuture<KeyEncryptionKey> resolveAsync(String keyId) {
    Objects.requireNonNull(keyId, "keyId");
    int slash = keyId.lastIndexOf('/');
    Ulid ulid;
    String namespace;
    try {
      namespace = keyId.substring(0, slash);
      ulid = Ulid.parse(keyId.substring(slash + 1));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(
          new LoamException(
              LoamException.Kind.NOT_FOUND, "namespace key id malformed keyId=" + keyId, e));
    }
    long now = clock.millis();
    Cached c =
        byId.compute(
            keyId,
            (k, old) ->
                old != null && old.expiresAtMillis() > now
                    ? old
                    : new Cached(fetch(namespace, ulid, keyId), now + ttlMillis));
    // A failed fetch is not kept: the next call asks again.
    c.key()
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                byId.remove(keyId, c);
              }
            });
    return c.key();
  }

  private CompletableFuture<KeyEncryptionKey> fetch(String namespace, Ulid ulid, String keyId) {
    String key = NamespaceKeyFile.key(clusterId, namespace, ulid);
    CompletableFuture<KeyEncryptionKey> f =
        store
            .get(key)
            .thenCompose(
                bytes -> {
                  NamespaceKeyFile.Contents c =
                      NamespaceKeyFile.decode(bytes, key, namespace, ulid);
                  return kms.unwrap(namespace, c.wrapped());
                })
            .thenApply(
                material -> {
                  try {
                    return new KeyEncryptionKey(keyId, material);
                  } finally {
                    Arrays.fill(material, (byte) 0);
                  }
                });
    return bounded(f, namespace, keyId);
  }

  /** Bounds a namespace's KMS work by the timeout and names the namespace in every failure. */
  private <T> CompletableFuture<T> bounded(CompletableFuture<T> f, String namespace, String keyId) {
    return f.orTimeout(kmsTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (v, e) -> {
              if (e == null) {
                return v;
              }
              throw new CompletionException(mapError(cause(e), namespace, keyId));
            });
  }

  private LoamException mapError(Throwable c, String namespace, String keyId) {
    String who = " namespace=" + namespace + " keyId=" + keyId;
    if (c instanceof KeyDestroyedException) {
      return new KeyDestroyedException(namespace, keyId);
    }
    if (c instanceof TimeoutException) {
      return new LoamException(
          LoamException.Kind.UNAVAILABLE,
          "namespace key unavailable: kms did not answer within "
              + kmsTimeout.toMillis()
              + " ms"
              + who,
          c);
    }
    if (c instanceof ObjectNotFoundException) {
      return new LoamException(LoamException.Kind.NOT_FOUND, "namespace key file missing" + who, c);
    }
    if (c instanceof LoamException l) {
      String prefix =
          l.kind() == LoamException.Kind.UNAVAILABLE
              ? "namespace key unavailable: "
              : "namespace key: ";
      return new LoamException(l.kind(), prefix + l.getMessage() + who, c);
    }
    return new LoamException(LoamException.Kind.INTERNAL, "namespace key failed" + who, c);
  }

  private static Throwable cause(Throwable e) {
    Throwable c = e;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  /**
   * The key with this id, waiting at most the KMS timeout for a fetch.
   *
   * @throws KeyDestroyedException if the namespace's master key was destroyed
   * @throws LoamException UNAVAILABLE if the KMS or store did not answer in time, NOT_FOUND if no
   *     such key exists
   */
  @Override
  public KeyEncryptionKey resolve(String keyId) {
    try {
      return resolveAsync(keyId).get(kmsTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable c = cause(e);
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new LoamException(
          LoamException.Kind.INTERNAL, "namespace key failed keyId=" + keyId, c);
    } catch (TimeoutException e) {
      throw new LoamException(
          LoamException.Kind.UNAVAILABLE, "namespace key unavailable: timed out keyId=" + keyId, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LoamException(
          LoamException.Kind.UNAVAILABLE, "namespace key fetch interrupted keyId=" + keyId, e);
    }
  }

  /**
   * Drops every key of the namespace held in memory, e.g. when its master key is destroyed, so the
   * next use asks the KMS at once instead of after the ttl.
   */
  public void forget(String namespace) {
    String p = namespace + "/";
    byId.keySet().removeIf(id -> id.startsWith(p));
    currentIds.remove(namespace);
  }
}
