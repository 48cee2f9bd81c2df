package dev.loam.wal.segment;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.BigEndian;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.KeyResolver;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens the batches of segment format v2 (docs/formats/segment-v2.md): one data key per
 * segment, wrapped under the namespace's key-encryption key in the seal block of the batch index,
 * and one AES-256-GCM message per batch whose associated data binds the object key, the batch's
 * position and its index entry. Stateless and thread-safe.
 */
public final class SealedSegment {
  /** The only algorithm code: AES-256-GCM per batch, data key wrapped with AES-KW. */
  public static final int ALGORITHM_AES256_GCM = 1;

  /** Bytes a sealed batch adds to its plaintext: the GCM tag. */
  public static final int TAG_LENGTH = 16;

  static final int DATA_KEY_LENGTH = 32;
  static final int WRAPPED_KEY_LENGTH = 40;
  static final int NONCE_LENGTH = 12;
  static final int AAD_MAGIC = 0x4C535342; // "LSSB"
  static final int MAX_KEY_ID_BYTES = 255;
  static final int MAX_OBJECT_KEY_BYTES = 1024;

  // Seal block, relative to its start; the key id has K bytes.
  static final int S_ALGORITHM = 0;
  static final int S_FLAGS = 1;
  static final int S_KEY_ID_LEN = 2;
  static final int S_KEY_ID = 4;

  /** Seal block bytes without the key id. */
  static final int SEAL_FIXED = S_KEY_ID + WRAPPED_KEY_LENGTH + 8 + 4;

  /**
   * A sealed segment's seal block as stored (inside the batch index, covered by its CRC).
   *
   * @param keyId the key-encryption key that wrapped the data key
   * @param flags the segment header's flags, repeated here so that every batch's seal binds them
   * @param streamId the segment's stream
   * @param partition the segment's partition
   * @param bytes the block as stored, bound into every batch's associated data
   */
  public record Seal(String keyId, int flags, long streamId, int partition, byte[] bytes) {
    public Seal {
      Objects.requireNonNull(keyId, "keyId");
      bytes = bytes.clone();
    }

    byte[] wrappedDataKey() {
      int at = S_KEY_ID + keyId.getBytes(StandardCharsets.UTF_8).length;
      return Arrays.copyOfRange(bytes, at, at + WRAPPED_KEY_LENGTH);
    }

    String who(String objectKey) {
      return " keyId="
          + keyId
          + " streamId="
          + streamId
          + " partition="
          + partition
          + " objectKey="
          + objectKey;
    }
  }

  private SealedSegment() {}

  /** The seal block of a new segment: {@code dataKey} wrapped under {@code kek}. */
  static byte[] sealBlock(
      KeyEncryptionKey kek, byte[] dataKey, int flags, long streamId, int partition) {
    byte[] id = kek.id().getBytes(StandardCharsets.UTF_8);
    byte[] wrapped = kek.wrapDataKey(dataKey);
    if (wrapped.length != WRAPPED_KEY_LENGTH) {
      throw new LoamException(Kind.INTERNAL, "aes key wrap output length=" + wrapped.length);
    }
    byte[] b = new byte[SEAL_FIXED + id.length];
    b[S_ALGORITHM] = (byte) ALGORITHM_AES256_GCM;
    b[S_FLAGS] = (byte) flags;
    BigEndian.putShort(b, S_KEY_ID_LEN, id.length);
    System.arraycopy(id, 0, b, S_KEY_ID, id.length);
    int at = S_KEY_ID + id.length;
    System.arraycopy(wrapped, 0, b, at, WRAPPED_KEY_LENGTH);
    BigEndian.putLong(b, at + WRAPPED_KEY_LENGTH, streamId);
    BigEndian.putInt(b, at + WRAPPED_KEY_LENGTH + 8, partition);
    return b;
  }

  /**
   * Parses a seal block: exactly {@code length} bytes of {@code b} at {@code at}.
   *
   * @throws CorruptionException if a field is out of range or the length does not match
   */
  static Seal parseSeal(byte[] b, int at, int length) {
    if (length < SEAL_FIXED + 1) {
      throw new CorruptionException("segment seal block too short length=" + length);
    }
    int alg = b[at + S_ALGORITHM] & 0xff;
    if (alg != ALGORITHM_AES256_GCM) {
      throw new CorruptionException("segment seal algorithm unknown code=" + alg);
    }
    int flags = b[at + S_FLAGS] & 0xff;
    if ((flags & ~SegmentFormat.FLAG_COMPACTED) != 0) {
      throw new CorruptionException("segment seal flags unknown flags=" + flags);
    }
    int k = BigEndian.getU16(b, at + S_KEY_ID_LEN);
    if (k < 1 || k > MAX_KEY_ID_BYTES || SEAL_FIXED + k != length) {
      throw new CorruptionException(
          "segment seal key_id_len does not match the block keyIdLen=" + k + " length=" + length);
    }
    String keyId;
    try {
      keyId =
          StandardCharsets.UTF_8
              .newDecoder()
              .decode(ByteBuffer.wrap(b, at + S_KEY_ID, k))
              .toString();
    } catch (CharacterCodingException e) {
      throw new CorruptionException("segment seal key_id not valid UTF-8", e);
    }
    int idEnd = at + S_KEY_ID + k + WRAPPED_KEY_LENGTH;
    long streamId = BigEndian.getLong(b, idEnd);
    int partition = BigEndian.getInt(b, idEnd + 8);
    if (partition < 0) {
      throw new CorruptionException("segment seal partition negative partition=" + partition);
    }
    return new Seal(keyId, flags, streamId, partition, Arrays.copyOfRange(b, at, at + length));
  }

  /** Encrypts one batch into {@code out} at {@code at}: ciphertext then tag. */
  static void sealBatch(
      SecretKey dataKey,
      String objectKey,
      byte[] sealBlock,
      int batchIndex,
      SegmentBatch entry,
      byte[] plain,
      int plainAt,
      int plainLength,
      byte[] out,
      int at) {
    try {
      Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
      gcm.init(
          Cipher.ENCRYPT_MODE, dataKey, new GCMParameterSpec(TAG_LENGTH * 8, nonce(batchIndex)));
      gcm.updateAAD(aad(objectKey, batchIndex, entry, sealBlock));
      int n = gcm.doFinal(plain, plainAt, plainLength, out, at);
      if (n != plainLength + TAG_LENGTH) {
        throw new LoamException(Kind.INTERNAL, "aes-gcm output length=" + n);
      }
    } catch (GeneralSecurityException e) {
      throw new LoamException(
          Kind.INTERNAL, "sealing segment batch failed objectKey=" + objectKey + " cause=" + e, e);
    }
  }

  static SecretKey dataKey(byte[] material) {
    return new SecretKeySpec(material, "AES");
  }

  private static byte[] nonce(int batchIndex) {
    byte[] n = new byte[NONCE_LENGTH];
    BigEndian.putLong(n, 4, batchIndex);
    return n;
  }

  private static byte[] aad(String objectKey, int batchIndex, SegmentBatch e, byte[] sealBlock) {
    byte[] key = objectKey.getBytes(StandardCharsets.UTF_8);
    if (key.length < 1 || key.length > MAX_OBJECT_KEY_BYTES) {
      throw new LoamException(
          Kind.INVALID, "segment object key length out of range bytes=" + key.length);
    }
    ByteBuffer a =
        ByteBuffer.allocate(4 + 2 + key.length + 4 + SegmentFormat.ENTRY_SIZE + sealBlock.length);
    a.putInt(AAD_MAGIC)
        .putShort((short) key.length)
        .put(key)
        .putInt(batchIndex)
        .putLong(e.baseOffset())
        .putInt(e.recordCount())
        .putLong(e.maxTimestamp())
        .putLong(e.position())
        .putInt(e.length())
        .put(sealBlock);
    return a.array();
  }

  /**
   * The key-encryption key the seal names, from {@code keys}.
   *
   * @throws KeyDestroyedException if the key was destroyed
   * @throws LoamException of the resolver's kind, its message followed by the segment's identity
   */
  public static KeyEncryptionKey resolve(Seal seal, String objectKey, KeyResolver keys) {
    KeyEncryptionKey kek;
    try {
      kek = keys.resolve(seal.keyId());
    } catch (KeyDestroyedException e) {
      throw e;
    } catch (LoamException e) {
      throw new LoamException(e.kind(), e.getMessage() + seal.who(objectKey), e);
    }
    if (!kek.id().equals(seal.keyId())) {
      throw new LoamException(
          Kind.INTERNAL,
          "key resolver returned another key resolved=" + kek.id() + seal.who(objectKey));
    }
    return kek;
  }

  /**
   * Opens the sealed batches {@code [first, first + count)} of a segment: {@code stored} holds
   * exactly their stored bytes, back to back, from batch {@code first}'s position.
   *
   * @param batches the segment's whole batch index (stored positions and lengths)
   * @return the batches' plaintext back to back (RecordBatch v2 bytes, as a v1 segment holds them)
   * @throws CorruptionException if the bytes do not match the index, the data key does not unwrap
   *     under {@code kek}, or a batch fails authentication (changed, moved or copied bytes)
   */
  public static byte[] open(
      String objectKey,
      Seal seal,
      KeyEncryptionKey kek,
      List<SegmentBatch> batches,
      int first,
      int count,
      byte[] stored) {
    String who = seal.who(objectKey);
    if (first < 0 || count < 1 || first + count > batches.size()) {
      throw new LoamException(
          Kind.INVALID,
          "sealed batch range outside the segment first=" + first + " count=" + count + who);
    }
    long base = batches.get(first).position();
    long storedLength =
        batches.get(first + count - 1).position() + batches.get(first + count - 1).length() - base;
    if (storedLength != stored.length) {
      throw new CorruptionException(
          "segment sealed range length differs from the index expected="
              + storedLength
              + " actual="
              + stored.length
              + who);
    }
    SecretKey dk = kek.unwrapDataKey(seal.wrappedDataKey());
    if (dk == null) {
      throw new CorruptionException("segment data key unwrap failed" + who);
    }
    byte[] out = new byte[stored.length - count * TAG_LENGTH];
    int at = 0;
    for (int i = first; i < first + count; i++) {
      SegmentBatch b = batches.get(i);
      int from = (int) (b.position() - base);
      try {
        Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
        gcm.init(Cipher.DECRYPT_MODE, dk, new GCMParameterSpec(TAG_LENGTH * 8, nonce(i)));
        gcm.updateAAD(aad(objectKey, i, b, seal.bytes()));
        at += gcm.doFinal(stored, from, b.length(), out, at);
      } catch (AEADBadTagException e) {
        throw new CorruptionException(
            "segment sealed batch authentication failed batch=" + i + who, e);
      } catch (GeneralSecurityException e) {
        throw new LoamException(Kind.INTERNAL, "aes-gcm unavailable" + who + " cause=" + e, e);
      }
    }
    return out;
  }
}
