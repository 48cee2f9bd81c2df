package dev.loam.core.crypto;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.ulid.Ulid;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Codec of the namespace key file (docs/formats/namespace-key-v1.md): one key-encryption key of a
 * namespace, wrapped by the namespace's master key, stored at {@code
 * ns/<cluster_id>/<namespace>/keys/<ulid>.key}.
 */
public final class NamespaceKeyFile {
  static final int MAGIC = 0x4C4B454B; // "LKEK"
  static final int VERSION = 1;
  static final int MAX_NAMESPACE_BYTES = 128;
  static final int MAX_WRAPPED = 4096;

  private NamespaceKeyFile() {}

  /** The decoded contents. */
  public record Contents(String namespace, Ulid ulid, byte[] wrapped) {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Contents {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(ulid, "ulid");
      Objects.requireNonNull(wrapped, "wrapped");
    }
  }

  /** The store key of a namespace's key file. */
  public static String key(String clusterId, String namespace, Ulid ulid) {
    return prefix(clusterId, namespace) + ulid + ".key";
  }

  /** The prefix under which a namespace's key files are listed. */
  public static String prefix(String clusterId, String namespace) {
    return "ns/" + clusterId + "/" + namespace + "/keys/";
  }

  /**
   * @throws LoamException INVALID if the namespace or wrapped key is out of range
   */
  public static byte[] encode(Contents c) {
    byte[] ns = c.namespace().getBytes(StandardCharsets.UTF_8);
    if (ns.length < 1 || ns.length > MAX_NAMESPACE_BYTES) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "namespace key file namespace length out of range bytes=" + ns.length);
    }
    if (c.wrapped().length < 1 || c.wrapped().length > MAX_WRAPPED) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "namespace key file wrapped key length out of range length="
              + c.wrapped().length
              + " namespace="
              + c.namespace());
    }
    ByteBuffer b = ByteBuffer.allocate(30 + ns.length + c.wrapped().length);
    b.putInt(MAGIC).put((byte) VERSION).put((byte) 0).putShort((short) ns.length).put(ns);
    c.ulid().writeTo(b.array(), b.position());
    b.position(b.position() + 16);
    b.putShort((short) c.wrapped().length).put(c.wrapped());
    b.putInt(crc(b.array(), b.position()));
    return b.array();
  }

  private static int crc(byte[] b, int len) {
    CRC32C c = new CRC32C();
    c.update(b, 0, len);
    return (int) c.getValue();
  }

  /**
   * Decodes and checks a key file read from {@code key}.
   *
   * @param namespace the namespace the key's path names
   * @param ulid the ULID the key's file name names
   * @throws CorruptionException naming the first failed check and {@code key}
   */
  public static Contents decode(byte[] bytes, String key, String namespace, Ulid ulid) {
    String who = " key=" + key;
    if (bytes.length < 31) {
      throw new CorruptionException("namespace key file too short length=" + bytes.length + who);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int magic = b.getInt(0);
    if (magic != MAGIC) {
      throw new CorruptionException(
          "namespace key file magic mismatch actual=" + Integer.toHexString(magic) + who);
    }
    int stored = b.getInt(bytes.length - 4);
    int actual = crc(bytes, bytes.length - 4);
    if (stored != actual) {
      throw new CorruptionException(
          "namespace key file crc mismatch expected="
              + Integer.toHexString(stored)
              + " actual="
              + Integer.toHexString(actual)
              + who);
    }
    int version = bytes[4] & 0xff;
    if (version != VERSION) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "unsupported namespace key file version=" + version + " supported=1" + who);
    }
    if (bytes[5] != 0) {
      throw new CorruptionException("namespace key file reserved not zero" + who);
    }
    int n = b.getShort(6) & 0xffff;
    if (n < 1 || n > MAX_NAMESPACE_BYTES || 30 + n + 1 > bytes.length) {
      throw new CorruptionException("namespace key file namespace_len out of range n=" + n + who);
    }
    String ns;
    try {
      ns = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, 8, n)).toString();
    } catch (CharacterCodingException e) {
      throw new CorruptionException("namespace key file namespace not valid UTF-8" + who, e);
    }
    Ulid u = Ulid.fromBytes(bytes, 8 + n);
    int w = b.getShort(24 + n) & 0xffff;
    if (w < 1 || w > MAX_WRAPPED || 30 + n + w != bytes.length) {
      throw new CorruptionException(
          "namespace key file wrapped_len inconsistent wrappedLen="
              + w
              + " length="
              + bytes.length
              + who);
    }
    if (!ns.equals(namespace) || !u.equals(ulid)) {
      throw new CorruptionException(
          "namespace key file names another key namespace=" + ns + " ulid=" + u + who);
    }
    byte[] wrapped = new byte[w];
    System.arraycopy(bytes, 26 + n, wrapped, 0, w);
    return new Contents(ns, u, wrapped);
  }
}
