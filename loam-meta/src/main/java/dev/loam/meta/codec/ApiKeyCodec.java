package dev.loam.meta.codec;

import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ApiKeyRole;
import dev.loam.meta.command.ScramSecrets;
import java.util.Set;

/**
 * The API key encodings shared by the command, outcome and snapshot formats
 * (docs/formats/metastore-commands.md): the roles byte, the SCRAM secrets block, and a whole key.
 * The readers check only the structure (reserved role bits 0, length-prefixed arrays); lengths and
 * ranges are the state machine's to validate, so a refused command still decodes.
 */
public final class ApiKeyCodec {
  private ApiKeyCodec() {}

  /** {@code u8 roles}: one bit per {@link ApiKeyRole}, the high four reserved and 0. */
  public static void writeRoles(BinaryWriter w, Set<ApiKeyRole> roles) {
    w.u8(ApiKeyRole.toBits(roles));
  }

  /** Reads {@link #writeRoles}; a reserved bit set is corruption. */
  public static Set<ApiKeyRole> readRoles(BinaryReader r, String field) {
    int bits = r.u8(field);
    if ((bits & ~ApiKeyRole.ALL_BITS) != 0) {
      throw r.corrupt(field, "reserved role bits must be 0 roles=0x" + Integer.toHexString(bits));
    }
    return ApiKeyRole.fromBits(bits);
  }

  /**
   * The secrets block: {@code bytes salt, i32 iterations, bytes storedKey256, bytes serverKey256,
   * bytes storedKey512, bytes serverKey512}, each {@code bytes} an {@code i32} length then the
   * bytes.
   */
  public static void writeSecrets(BinaryWriter w, ScramSecrets s) {
    w.bytes(s.salt()).i32(s.iterations());
    w.bytes(s.storedKey256()).bytes(s.serverKey256());
    w.bytes(s.storedKey512()).bytes(s.serverKey512());
  }

  /** Reads {@link #writeSecrets}. */
  public static ScramSecrets readSecrets(BinaryReader r, String field) {
    byte[] salt = r.bytes(field + ".salt");
    int iterations = r.i32(field + ".iterations");
    byte[] stored256 = r.bytes(field + ".storedKey256");
    byte[] server256 = r.bytes(field + ".serverKey256");
    byte[] stored512 = r.bytes(field + ".storedKey512");
    byte[] server512 = r.bytes(field + ".serverKey512");
    return new ScramSecrets(salt, iterations, stored256, server256, stored512, server512);
  }

  /**
   * A whole key: {@code str id, str? scope, u8 roles, i64 createdAtMillis, i64 revokedAtMillis}
   * (-1: active), then the secrets block.
   */
  public static void writeKey(BinaryWriter w, ApiKeyInfo k) {
    w.string(k.id()).nullableString(k.scope());
    writeRoles(w, k.roles());
    w.i64(k.createdAtMillis()).i64(k.revokedAtMillis());
    writeSecrets(w, k.secrets());
  }

  /** Reads {@link #writeKey}. */
  public static ApiKeyInfo readKey(BinaryReader r, String field) {
    String id = r.string(field + ".id");
    String scope = r.nullableString(field + ".scope");
    Set<ApiKeyRole> roles = readRoles(r, field + ".roles");
    long created = r.i64(field + ".createdAtMillis");
    long revoked = r.i64(field + ".revokedAtMillis");
    return new ApiKeyInfo(id, scope, roles, created, revoked, readSecrets(r, field + ".secrets"));
  }
}
