package dev.loam.wal.object;

import static dev.loam.wal.object.WalFormat.MAX_KEY_ID_BYTES;
import static dev.loam.wal.object.WalFormat.S_ALGORITHM;
import static dev.loam.wal.object.WalFormat.S_KEY_ID;
import static dev.loam.wal.object.WalFormat.S_KEY_ID_LEN;
import static dev.loam.wal.object.WalFormat.S_RESERVED;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.util.Arrays;
import java.util.Objects;
import java.util.random.RandomGenerator;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens the chunks of WAL format v2 (docs/formats/wal-object-v2.md): AES-256-GCM under a
 * fresh data key per chunk, the data key wrapped with AES Key Wrap under the namespace's
 * key-encryption key, associated data binding object key, stream, partition and chunk index.
 * Stateless and thread-safe.
 */
public final class SealedChunk {
  /** The only algorithm code: AES-256-GCM, data key wrapped with AES-KW. */
  public static final int ALGORITHM_AES256_GCM = 1;

  static final int DATA_KEY_LENGTH = 32;
  static final int WRAPPED_KEY_LENGTH = 40;
  static final int NONCE_LENGTH = 12;
  static final int TAG_LENGTH = 16;
  static final int AAD_MAGIC = 0x4C575343; // "LWSC"
  static final int MAX_OBJECT_KEY_BYTES = 1024;

  /** Where a chunk sits: what its associated data binds. */
  public record Binding(String objectKey, long streamId, int partition, int chunkIndex) {
    /**
     * @throws LoamException INVALID if the object key is not 1..1024 bytes of UTF-8 or the
     *     partition or chunk index is negative
     * @throws NullPointerException if {@code objectKey} is null
     */
    public Binding {
      Objects.requireNonNull(objectKey, "objectKey");
      int n = objectKey.getBytes(StandardCharsets.UTF_8).length;
      if (n < 1 || n > MAX_OBJECT_KEY_BYTES) {
        throw new LoamException(
            LoamException.Kind.INVALID,
            "sealed chunk object key length out of range bytes=" + n + " min=1 max=1024");
      }
      if (partition < 0 || chunkIndex < 0) {
        throw new LoamException(
            LoamException.Kind.INVALID,
            "sealed chunk binding negative partition=" + partition + " chunkIndex=" + chunkIndex);
      }
    }

    String who(String keyId) {
      return " keyId="
          + keyId
          + " streamId="
          + streamId
          + " partition="
          + partition
          + " chunkIndex="
          + chunkIndex
          + " objectKey="
          + objectKey;
    }
  }

  /** The parsed sealed chunk header. */
  public record Header(String keyId, int headerLength) {}

  private SealedChunk() {}

  /** Stored size of a sealed chunk whose key id has {@code keyIdBytes} bytes. */
  static long sealedSize(int keyIdBytes, long plaintextLength) {
    return headerSize(keyIdBytes) + plaintextLength + TAG_LENGTH;
  }

  static int headerSize(int keyIdBytes) {
    return S_KEY_ID + keyIdBytes + WRAPPED_KEY_LENGTH + NONCE_LENGTH;
  }

  /**
   * Seals {@code plaintext} into {@code out} at {@code at}, writing exactly {@link #sealedSize}
   * bytes.
   */
  static void seal(
      byte[] plaintext,
      KeyEncryptionKey kek,
      Binding binding,
      ChunkEncoding encoding,
      RandomGenerator random,
      byte[] out,
      int at) {
    byte[] keyId = kek.id().getBytes(StandardCharsets.UTF_8);
    int h = headerSize(keyId.length);
    out[at + S_ALGORITHM] = (byte) ALGORITHM_AES256_GCM;
    out[at + S_RESERVED] = 0;
    BigEndian.putShort(out, at + S_KEY_ID_LEN, keyId.length);
    System.arraycopy(keyId, 0, out, at + S_KEY_ID, keyId.length);
    byte[] dataKey = new byte[DATA_KEY_LENGTH];
    random.nextBytes(dataKey);
    byte[] nonce = new byte[NONCE_LENGTH];
    random.nextBytes(nonce);
    SecretKeySpec dk = new SecretKeySpec(dataKey, "AES");
    try {
      Cipher wrap = Cipher.getInstance("AESWrap");
      wrap.init(Cipher.WRAP_MODE, new SecretKeySpec(kek.material(), "AES"));
      byte[] wrapped = wrap.wrap(dk);
      if (wrapped.length != WRAPPED_KEY_LENGTH) {
        throw new LoamException(
            LoamException.Kind.INTERNAL, "aes key wrap output length=" + wrapped.length);
      }
      int wrappedAt = at + S_KEY_ID + keyId.length;
      System.arraycopy(wrapped, 0, out, wrappedAt, WRAPPED_KEY_LENGTH);
      System.arraycopy(nonce, 0, out, wrappedAt + WRAPPED_KEY_LENGTH, NONCE_LENGTH);
      Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
      gcm.init(Cipher.ENCRYPT_MODE, dk, new GCMParameterSpec(TAG_LENGTH * 8, nonce));
      gcm.updateAAD(aad(binding, encoding, out, at, h));
      int n = gcm.doFinal(plaintext, 0, plaintext.length, out, at + h);
      if (n != plaintext.length + TAG_LENGTH) {
        throw new LoamException(LoamException.Kind.INTERNAL, "aes-gcm output length=" + n);
      }
    } catch (GeneralSecurityException e) {
      throw new LoamException(
          LoamException.Kind.INTERNAL,
          "sealing chunk failed" + binding.who(kek.id()) + " cause=" + e,
          e);
    } finally {
      Arrays.fill(dataKey, (byte) 0);
    }
  }

  private static byte[] aad(
      Binding b, ChunkEncoding encoding, byte[] header, int at, int headerLength) {
    byte[] key = b.objectKey().getBytes(StandardCharsets.UTF_8);
    ByteBuffer a = ByteBuffer.allocate(4 + 2 + key.length + 8 + 4 + 4 + 1 + headerLength);
    a.putInt(AAD_MAGIC)
        .putShort((short) key.length)
        .put(key)
        .putLong(b.streamId())
        .putInt(b.partition())
        .putInt(b.chunkIndex())
        .put((byte) encoding.code())
        .put(header, at, headerLength);
    return a.array();
  }

  /**
   * Parses the sealed chunk header of {@code chunk} (position to limit; not moved).
   *
   * @throws CorruptionException if the algorithm, reserved byte, key id length or key id is wrong,
   *     or the chunk is too short to hold a header, one plaintext byte and the tag
   */
  public static Header parseHeader(ByteBuffer chunk, Binding binding) {
    int p = chunk.position();
    int len = chunk.remaining();
    String who = binding.who("?");
    if (len < headerSize(1) + 1 + TAG_LENGTH) {
      throw new CorruptionException("wal sealed chunk too short length=" + len + who);
    }
    int alg = chunk.get(p + S_ALGORITHM) & 0xff;
    if (alg != ALGORITHM_AES256_GCM) {
      throw new CorruptionException("wal sealed chunk algorithm unknown code=" + alg + who);
    }
    int reserved = chunk.get(p + S_RESERVED) & 0xff;
    if (reserved != 0) {
      throw new CorruptionException("wal sealed chunk reserved not zero actual=" + reserved + who);
    }
    int k = chunk.getShort(p + S_KEY_ID_LEN) & 0xffff;
    if (k < 1 || k > MAX_KEY_ID_BYTES || sealedSize(k, 1) > len) {
      throw new CorruptionException(
          "wal sealed chunk key_id_len out of range keyIdLen=" + k + " length=" + len + who);
    }
    String keyId;
    try {
      keyId =
          StandardCharsets.UTF_8
              .newDecoder()
              .decode(chunk.duplicate().position(p + S_KEY_ID).limit(p + S_KEY_ID + k))
              .toString();
    } catch (CharacterCodingException e) {
      throw new CorruptionException("wal sealed chunk key_id not valid UTF-8" + who, e);
    }
    return new Header(keyId, headerSize(k));
  }

  /**
   * Verifies and decrypts a sealed chunk (position to limit of {@code chunk}; not moved).
   *
   * @return the plaintext: the chunk's payloads as a v1 chunk holds them
   * @throws CorruptionException if the header is malformed, the data key does not unwrap under the
   *     named key, or authentication fails (changed bytes, another position, object or stream)
   * @throws LoamException of the kind {@link KeyResolver#resolve} threw, its message followed by
   *     the chunk's identity; a destroyed key is the resolver's {@link KeyDestroyedException}
   */
  public static byte[] open(
      ByteBuffer chunk, Binding binding, ChunkEncoding encoding, KeyResolver keys) {
    Header h = parseHeader(chunk, binding);
    String who = binding.who(h.keyId());
    KeyEncryptionKey kek;
    try {
      kek = keys.resolve(h.keyId());
    } catch (KeyDestroyedException e) {
      throw e;
    } catch (LoamException e) {
      // Same kind, so callers still tell a missing key from an unreachable KMS; plus the chunk.
      throw new LoamException(e.kind(), e.getMessage() + who, e);
    }
    if (!kek.id().equals(h.keyId())) {
      throw new LoamException(
          LoamException.Kind.INTERNAL,
          "key resolver returned another key resolved=" + kek.id() + who);
    }
    byte[] all = new byte[chunk.remaining()];
    chunk.duplicate().get(all);
    int wrappedAt = h.headerLength() - NONCE_LENGTH - WRAPPED_KEY_LENGTH;
    Key dataKey;
    try {
      Cipher unwrap = Cipher.getInstance("AESWrap");
      unwrap.init(Cipher.UNWRAP_MODE, new SecretKeySpec(kek.material(), "AES"));
      dataKey =
          unwrap.unwrap(
              Arrays.copyOfRange(all, wrappedAt, wrappedAt + WRAPPED_KEY_LENGTH),
              "AES",
              Cipher.SECRET_KEY);
    } catch (InvalidKeyException e) {
      throw new CorruptionException("wal sealed chunk data key unwrap failed" + who, e);
    } catch (GeneralSecurityException e) {
      throw new LoamException(
          LoamException.Kind.INTERNAL, "aes key unwrap unavailable" + who + " cause=" + e, e);
    }
    try {
      Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
      gcm.init(
          Cipher.DECRYPT_MODE,
          dataKey,
          new GCMParameterSpec(TAG_LENGTH * 8, all, h.headerLength() - NONCE_LENGTH, NONCE_LENGTH));
      gcm.updateAAD(aad(binding, encoding, all, 0, h.headerLength()));
      return gcm.doFinal(all, h.headerLength(), all.length - h.headerLength());
    } catch (AEADBadTagException e) {
      throw new CorruptionException("wal sealed chunk authentication failed" + who, e);
    } catch (GeneralSecurityException e) {
      throw new LoamException(
          LoamException.Kind.INTERNAL, "aes-gcm unavailable" + who + " cause=" + e, e);
    }
  }
}
