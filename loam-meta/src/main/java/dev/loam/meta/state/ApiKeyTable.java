package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.ApiKeyCodec;
import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ApiKeyRole;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.command.ScramSecrets;
import java.util.List;
import java.util.TreeMap;

/**
 * The API keys: the {@link CreateApiKey} and {@link RevokeApiKey} rules and the version 7 snapshot
 * section (docs/formats/metastore-snapshot.md). Keys are kept by id, revoked ones too (they stay
 * listed, and their ids are never reused), so each state has one encoding.
 */
final class ApiKeyTable {
  private final TreeMap<String, ApiKeyInfo> keys = new TreeMap<>();

  ApiKeyInfo get(String id) {
    return id == null ? null : keys.get(id);
  }

  List<ApiKeyInfo> all() {
    return List.copyOf(keys.values());
  }

  /** Whether any key exists, revoked or not: the snapshot needs version 7 to hold it. */
  boolean any() {
    return !keys.isEmpty();
  }

  Outcome create(CreateApiKey c, long clockMillis) {
    String where = " key=" + shortened(c.id());
    if (!ApiKeyInfo.isValidId(c.id())) {
      return rejected(
          RejectReason.INVALID,
          "API key id must be " + ApiKeyInfo.ID_LENGTH + " characters of [a-z2-7]" + where);
    }
    if (c.scope() != null && !Catalog.validName(c.scope())) {
      return Catalog.invalidName("scope namespace", c.scope());
    }
    if (c.roles().isEmpty()) {
      return rejected(RejectReason.INVALID, "an API key needs at least one role" + where);
    }
    if (c.scope() != null && c.roles().contains(ApiKeyRole.CLUSTER_ADMIN)) {
      return rejected(
          RejectReason.INVALID,
          "cluster-admin needs a cluster-wide key" + where + " scope=" + c.scope());
    }
    if (c.secrets() == null || !c.secrets().isWellFormed()) {
      return rejected(
          RejectReason.INVALID,
          "API key secrets must hold a "
              + ScramSecrets.SALT_BYTES
              + "-byte salt, "
              + ScramSecrets.MIN_ITERATIONS
              + ".."
              + ScramSecrets.MAX_ITERATIONS
              + " iterations and SHA-256 and SHA-512 keys"
              + where);
    }
    ApiKeyInfo existing = keys.get(c.id());
    if (existing != null) {
      boolean retry =
          java.util.Objects.equals(existing.scope(), c.scope())
              && existing.roles().equals(c.roles())
              && existing.secrets().equals(c.secrets());
      return retry
          ? new Outcome.ApiKeyCreated(existing)
          : rejected(RejectReason.ALREADY_EXISTS, "API key id taken" + where);
    }
    if (keys.size() >= CreateApiKey.MAX_API_KEYS) {
      return rejected(
          RejectReason.INVALID,
          "the cluster holds at most "
              + CreateApiKey.MAX_API_KEYS
              + " API keys, revoked ones included"
              + where);
    }
    ApiKeyInfo key =
        new ApiKeyInfo(c.id(), c.scope(), c.roles(), clockMillis, ApiKeyInfo.ACTIVE, c.secrets());
    keys.put(key.id(), key);
    return new Outcome.ApiKeyCreated(key);
  }

  Outcome revoke(RevokeApiKey c, long clockMillis) {
    ApiKeyInfo k = get(c.id());
    if (k == null) {
      return rejected(RejectReason.NOT_FOUND, "no such API key key=" + shortened(c.id()));
    }
    if (k.revoked()) {
      return new Outcome.ApiKeyRevoked(k, false);
    }
    ApiKeyInfo revoked = k.revokedAt(clockMillis);
    keys.put(revoked.id(), revoked);
    return new Outcome.ApiKeyRevoked(revoked, true);
  }

  /** A proposed id for a message: an over-long one is cut, so a refusal stays small. */
  private static String shortened(String id) {
    int max = ApiKeyInfo.ID_LENGTH + 16;
    return id == null || id.length() <= max ? id : id.substring(0, max) + "...";
  }

  /** The version 7 section: {@code i32 count}, then each key ({@link ApiKeyCodec#writeKey}). */
  void write(BinaryWriter w) {
    w.i32(keys.size());
    for (ApiKeyInfo k : keys.values()) {
      ApiKeyCodec.writeKey(w, k);
    }
  }

  /**
   * Reads {@link #write}'s section. Anything no writer produces is corruption: no key in version 7
   * (written only when one exists), an unsorted or repeated id, and a key the create rule would
   * have refused.
   */
  void read(BinaryReader r, int version) {
    int n = r.count("apiKeys.count", 4 + 4 + 1 + 8 + 8 + 4 + 4 + 4 * 4);
    if (version == 7 && n < 1) {
      throw r.corrupt("apiKeys.count", "a version 7 snapshot must hold an API key");
    }
    String prev = null;
    for (int i = 0; i < n; i++) {
      ApiKeyInfo k = ApiKeyCodec.readKey(r, "apiKey");
      if (!ApiKeyInfo.isValidId(k.id()) || (prev != null && prev.compareTo(k.id()) >= 0)) {
        throw r.corrupt("apiKey.id", "invalid, unsorted or duplicate key=" + shortened(k.id()));
      }
      boolean valid =
          (k.scope() == null || Catalog.validName(k.scope()))
              && !k.roles().isEmpty()
              && !(k.scope() != null && k.roles().contains(ApiKeyRole.CLUSTER_ADMIN))
              && k.secrets().isWellFormed()
              && (!k.revoked() || k.revokedAtMillis() >= 0);
      if (!valid) {
        throw r.corrupt("apiKey", "a key no create could have made key=" + k.id());
      }
      keys.put(k.id(), k);
      prev = k.id();
    }
  }
}
