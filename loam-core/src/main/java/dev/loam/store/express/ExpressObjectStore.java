package dev.loam.store.express;

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
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ObjectKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The express durability class's store (stream-engine.txt §3): every write goes to three zonal
 * stores in parallel and succeeds once two have it, so an acknowledged WAL object survives the loss
 * of one zone. Reads go to the local zone first and fall back to the others. A write that failed to
 * reach a majority leaves its minority copies in place: keys here are immutable WAL objects whose
 * retries carry the same bytes, so such a copy is either completed by a retry or, never referenced,
 * deleted by orphan GC.
 *
 * <p>Holds WAL objects only; segments belong in the standard store. Thread-safe.
 */
public final class ExpressObjectStore implements ObjectStore {
  private static final int ZONES = 3;
  private static final int MAJORITY = 2;

  private final List<ObjectStore> zones;
  private final int localZone;
  private volatile boolean closed;

  /**
   * @param zones exactly three stores, one per zone
   * @param localZone the index (0..2) of the zone this node runs in; reads try it first
   */
  public ExpressObjectStore(List<ObjectStore> zones, int localZone) {
    if (zones.size() != ZONES) {
      throw new LoamException(
          Kind.INVALID, "express needs exactly 3 zonal stores, got zones=" + zones.size());
    }
    if (localZone < 0 || localZone >= ZONES) {
      throw new LoamException(Kind.INVALID, "local zone out of range localZone=" + localZone);
    }
    this.zones = List.copyOf(zones);
    this.localZone = localZone;
  }

  /** A failed future if the store is closed or the key is invalid, else null. */
  private <T> CompletableFuture<T> refuse(String key) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException("express store is closed key=" + ObjectKeys.describe(key)));
    }
    Optional<InvalidKeyException> bad = ObjectKeys.check(key);
    return bad.isPresent() ? CompletableFuture.failedFuture(bad.get()) : null;
  }

  /** The verdict of one zone for one write. */
  private enum Verdict {
    WRITTEN,
    EXISTED,
    UNKNOWN,
    FAILED
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return write(key, s -> s.create(key, bytes), true);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return write(key, s -> s.put(key, bytes), false);
  }

  private CompletableFuture<Void> write(
      String key, Function<ObjectStore, CompletableFuture<Void>> op, boolean exclusive) {
    CompletableFuture<Void> refused = refuse(key);
    if (refused != null) {
      return refused;
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    Verdict[] verdicts = new Verdict[ZONES];
    Throwable[] errors = new Throwable[ZONES];
    for (int z = 0; z < ZONES; z++) {
      int zone = z;
      CompletableFuture<Void> f;
      try {
        f = op.apply(zones.get(zone));
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      f.whenComplete(
          (v, e) -> {
            Verdict verdict;
            Throwable cause = unwrap(e);
            if (e == null) {
              verdict = Verdict.WRITTEN;
            } else if (cause instanceof ObjectExistsException) {
              verdict = Verdict.EXISTED;
            } else if (cause instanceof StoreOutcomeUnknownException) {
              verdict = Verdict.UNKNOWN;
            } else {
              verdict = Verdict.FAILED;
            }
            synchronized (verdicts) {
              verdicts[zone] = verdict;
              errors[zone] = cause;
              decide(key, verdicts, errors, result, exclusive);
            }
          });
    }
    return result;
  }

  // Called under the verdicts lock after each zone answers; completes the result as soon as the
  // outcome is certain.
  private static void decide(
      String key,
      Verdict[] verdicts,
      Throwable[] errors,
      CompletableFuture<Void> result,
      boolean exclusive) {
    int written = 0;
    int existed = 0;
    int unknown = 0;
    int pending = 0;
    for (Verdict v : verdicts) {
      if (v == null) {
        pending++;
      } else if (v == Verdict.WRITTEN) {
        written++;
      } else if (v == Verdict.EXISTED) {
        existed++;
      } else if (v == Verdict.UNKNOWN) {
        unknown++;
      }
    }
    if (!result.isDone()) {
      if (written >= MAJORITY) {
        result.complete(null);
      } else if (exclusive && existed >= MAJORITY) {
        result.completeExceptionally(
            new ObjectExistsException("object exists in a majority of zones key=" + key));
      } else if (!exclusive && written + existed >= MAJORITY) {
        result.complete(null);
      } else if (written + existed + unknown + pending < MAJORITY) {
        // A majority can no longer be reached.
        result.completeExceptionally(failure(key, verdicts, errors, unknown > 0));
      } else if (pending == 0) {
        // Everyone answered, no majority either way (e.g. written 1, existed 1, failed 1).
        result.completeExceptionally(failure(key, verdicts, errors, true));
      }
    }
    // A failed write may leave a copy in a minority of zones. It is deliberately not deleted here:
    // the caller retries the same key with the same bytes, and a cleanup delete still in flight
    // (or delayed by a slow zone) could land after the retry wrote that zone and remove a copy of
    // an acknowledged object (found by the cluster simulation, seed 4473835). An unacknowledged
    // copy is never referenced by the index, so no fetch reads it; orphan GC deletes it.
  }

  private static ObjectStoreException failure(
      String key, Verdict[] verdicts, Throwable[] errors, boolean unknown) {
    StringBuilder why = new StringBuilder();
    for (int z = 0; z < ZONES; z++) {
      why.append(" zone").append(z).append('=').append(verdicts[z]);
    }
    Throwable first = null;
    for (Throwable t : errors) {
      if (t != null) {
        first = t;
        break;
      }
    }
    String msg = "express write reached fewer than 2 of 3 zones" + why + " key=" + key;
    return unknown
        ? new StoreOutcomeUnknownException(msg, first)
        : new StoreUnavailableException(msg, first);
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    CompletableFuture<byte[]> refused = refuse(key);
    if (refused != null) {
      return refused;
    }
    return read(s -> s.get(key), 0, null);
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    CompletableFuture<byte[]> refused = refuse(key);
    if (refused != null) {
      return refused;
    }
    return read(s -> s.get(key, offset, length), 0, null);
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    CompletableFuture<TailRead> refused = refuse(key);
    if (refused != null) {
      return refused;
    }
    return read(s -> s.getTail(key, length), 0, null);
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    CompletableFuture<Optional<ObjectInfo>> refused = refuse(key);
    if (refused != null) {
      return refused;
    }
    return read(
            s ->
                s.head(key)
                    .thenApply(
                        o -> {
                          if (o.isEmpty()) {
                            throw new ObjectNotFoundException("not in this zone key=" + key);
                          }
                          return o;
                        }),
            0,
            null)
        .exceptionally(
            e -> {
              if (unwrap(e) instanceof ObjectNotFoundException) {
                return Optional.empty();
              }
              throw e instanceof CompletionException ce ? ce : new CompletionException(e);
            });
  }

  /**
   * Tries the local zone, then the others in order. A zone that lacks the object (a write that
   * reached only the other two) or is down is skipped; invalid keys and ranges fail at once.
   */
  private <T> CompletableFuture<T> read(
      Function<ObjectStore, CompletableFuture<T>> op, int attempt, Throwable firstError) {
    int zone = (localZone + attempt) % ZONES;
    CompletableFuture<T> f;
    try {
      f = op.apply(zones.get(zone));
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    return f.handle(
            (v, e) -> {
              if (e == null) {
                return CompletableFuture.completedFuture(v);
              }
              Throwable cause = unwrap(e);
              if (cause instanceof InvalidKeyException || cause instanceof InvalidRangeException) {
                return CompletableFuture.<T>failedFuture(cause);
              }
              Throwable keep =
                  firstError == null || cause instanceof StoreUnavailableException
                      ? cause
                      : firstError;
              if (attempt + 1 >= ZONES) {
                return CompletableFuture.<T>failedFuture(keep);
              }
              return read(op, attempt + 1, keep);
            })
        .thenCompose(Function.identity());
  }

  /**
   * Lists the union of the zones (a key present in any zone appears once, with the largest size
   * seen). Needs at least two zones to answer, so a key acknowledged to a majority is never missing
   * from the listing.
   */
  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException("express store is closed"));
    }
    Optional<InvalidRangeException> badMax = ObjectKeys.checkMaxKeys(maxKeys, prefix);
    if (badMax.isPresent()) {
      return CompletableFuture.failedFuture(badMax.get());
    }
    // Pages in read order (local zone first): a key's info comes from the first zone that lists
    // it, the same zone a head or get would answer from, so list and head agree.
    List<CompletableFuture<ListPage>> pages = new ArrayList<>();
    for (int i = 0; i < ZONES; i++) {
      ObjectStore z = zones.get((localZone + i) % ZONES);
      pages.add(z.list(prefix, startAfter, maxKeys).exceptionally(e -> null));
    }
    return CompletableFuture.allOf(pages.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              TreeMap<String, ObjectInfo> merged = new TreeMap<>(ExpressObjectStore::compareUtf8);
              int answered = 0;
              String horizon = null;
              for (CompletableFuture<ListPage> pf : pages) {
                ListPage p = pf.join();
                if (p == null) {
                  continue;
                }
                answered++;
                for (ObjectInfo o : p.objects()) {
                  merged.putIfAbsent(o.key(), o);
                }
                // A zone that stopped early bounds how far the merged page is complete.
                if (p.nextStartAfter().isPresent()) {
                  String last = p.nextStartAfter().get();
                  if (horizon == null || compareUtf8(last, horizon) < 0) {
                    horizon = last;
                  }
                }
              }
              if (answered < MAJORITY) {
                throw new StoreUnavailableException(
                    "listing needs 2 of 3 zones answered=" + answered + " prefix=" + prefix);
              }
              List<ObjectInfo> out = new ArrayList<>();
              for (Map.Entry<String, ObjectInfo> e : merged.entrySet()) {
                if (horizon != null && compareUtf8(e.getKey(), horizon) > 0) {
                  break;
                }
                if (out.size() == maxKeys) {
                  break;
                }
                out.add(e.getValue());
              }
              boolean more = horizon != null || out.size() < merged.size();
              Optional<String> next =
                  more && !out.isEmpty()
                      ? Optional.of(out.get(out.size() - 1).key())
                      : Optional.empty();
              return new ListPage(out, next);
            });
  }

  /** Deletes from every zone; a key fails if any reachable zone failed to delete it. */
  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException("express store is closed"));
    }
    Optional<InvalidRangeException> tooMany = ObjectKeys.checkDeleteBatch(keys.size());
    if (tooMany.isPresent()) {
      return CompletableFuture.failedFuture(tooMany.get());
    }
    List<CompletableFuture<List<DeleteFailure>>> all = new ArrayList<>();
    for (ObjectStore z : zones) {
      all.add(z.delete(keys));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .handle(
            (v, e) -> {
              Map<String, DeleteFailure> failures = new TreeMap<>();
              for (CompletableFuture<List<DeleteFailure>> f : all) {
                if (f.isCompletedExceptionally()) {
                  Throwable cause = unwrap(f.handle((x, t) -> t).join());
                  for (String k : keys) {
                    failures.putIfAbsent(
                        k,
                        new DeleteFailure(
                            k,
                            cause instanceof ObjectStoreException ose
                                ? ose
                                : new StoreUnavailableException(
                                    "zone delete failed key=" + k, cause)));
                  }
                } else {
                  for (DeleteFailure df : f.join()) {
                    failures.putIfAbsent(df.key(), df);
                  }
                }
              }
              return List.copyOf(failures.values());
            });
  }

  @Override
  public void close() {
    closed = true;
    for (ObjectStore z : zones) {
      z.close();
    }
  }

  private static int compareUtf8(String a, String b) {
    return java.util.Arrays.compareUnsigned(
        a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
