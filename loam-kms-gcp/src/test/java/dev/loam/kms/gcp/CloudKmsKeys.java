package dev.loam.kms.gcp;

import com.google.cloud.kms.v1.CreateCryptoKeyRequest;
import com.google.cloud.kms.v1.CreateCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.CryptoKey;
import com.google.cloud.kms.v1.CryptoKeyVersion;
import com.google.cloud.kms.v1.CryptoKeyVersion.CryptoKeyVersionState;
import com.google.cloud.kms.v1.DecryptRequest;
import com.google.cloud.kms.v1.DecryptResponse;
import com.google.cloud.kms.v1.DestroyCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.EncryptRequest;
import com.google.cloud.kms.v1.EncryptResponse;
import com.google.cloud.kms.v1.GetCryptoKeyRequest;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsRequest;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsResponse;
import com.google.cloud.kms.v1.UpdateCryptoKeyPrimaryVersionRequest;
import com.google.protobuf.ByteString;
import com.google.protobuf.Int64Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The state behind {@link LocalCloudKms}: crypto keys and their versions (AES-256 material, state,
 * the primary), and the handlers of the calls on them, answering with Cloud KMS's status codes.
 * Encrypt seals with AES-256-GCM under the primary version, the ciphertext naming its version and
 * the associated data binding the key name, version and the request's additional authenticated
 * data; Decrypt verifies the checksums it is given, as Cloud KMS does, and answers INVALID_ARGUMENT
 * for a ciphertext it cannot open.
 */
final class CloudKmsKeys {
  private static final class Version {
    final byte[] material;
    volatile CryptoKeyVersionState state = CryptoKeyVersionState.ENABLED;

    Version(byte[] material) {
      this.material = material;
    }
  }

  private static final class Key {
    final String name;
    final List<Version> versions = new CopyOnWriteArrayList<>();
    volatile int primary = 1;

    Key(String name) {
      this.name = name;
    }
  }

  private static final Pattern KEY_ID = Pattern.compile("[a-zA-Z0-9_-]{1,63}");
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Key> keys = new ConcurrentHashMap<>();

  /** Answer Encrypt with a ciphertext checksum that does not match (a response damaged). */
  volatile boolean damageCiphertextChecksum;

  /** Thrown by a handler: the status to answer with. */
  static StatusRuntimeException status(Status.Code code, String message) {
    return Status.fromCode(code).withDescription(message).asRuntimeException();
  }

  CryptoKey get(GetCryptoKeyRequest r) {
    return describe(key(r.getName()));
  }

  private static long crc32c(ByteString b) {
    CRC32C c = new CRC32C();
    c.update(b.asReadOnlyByteBuffer());
    return c.getValue();
  }

  private static String versionName(Key k, int v) {
    return k.name + "/cryptoKeyVersions/" + v;
  }

  private Key key(String name) {
    String keyName =
        name.contains("/cryptoKeyVersions/") ? name.split("/cryptoKeyVersions/")[0] : name;
    Key k = keys.get(keyName);
    if (k == null) {
      throw status(Status.Code.NOT_FOUND, "CryptoKey " + keyName + " not found.");
    }
    return k;
  }

  private CryptoKeyVersion version(Key k, int v) {
    return CryptoKeyVersion.newBuilder()
        .setName(versionName(k, v))
        .setState(k.versions.get(v - 1).state)
        .setAlgorithm(CryptoKeyVersion.CryptoKeyVersionAlgorithm.GOOGLE_SYMMETRIC_ENCRYPTION)
        .build();
  }

  private CryptoKey describe(Key k) {
    return CryptoKey.newBuilder()
        .setName(k.name)
        .setPurpose(CryptoKey.CryptoKeyPurpose.ENCRYPT_DECRYPT)
        .setPrimary(version(k, k.primary))
        .build();
  }

  private byte[] material() {
    byte[] m = new byte[32];
    random.nextBytes(m);
    return m;
  }

  CryptoKey createCryptoKey(CreateCryptoKeyRequest r) {
    if (!r.getParent().equals(LocalCloudKms.KEY_RING)) {
      throw status(Status.Code.NOT_FOUND, "KeyRing " + r.getParent() + " not found.");
    }
    if (!KEY_ID.matcher(r.getCryptoKeyId()).matches()) {
      throw status(Status.Code.INVALID_ARGUMENT, "crypto_key_id " + r.getCryptoKeyId());
    }
    if (r.getCryptoKey().getPurpose() != CryptoKey.CryptoKeyPurpose.ENCRYPT_DECRYPT) {
      throw status(Status.Code.INVALID_ARGUMENT, "purpose " + r.getCryptoKey().getPurpose());
    }
    Key k = new Key(r.getParent() + "/cryptoKeys/" + r.getCryptoKeyId());
    k.versions.add(new Version(material()));
    if (keys.putIfAbsent(k.name, k) != null) {
      throw status(Status.Code.ALREADY_EXISTS, "CryptoKey " + k.name + " already exists.");
    }
    return describe(k);
  }

  private static byte[] aad(Key k, int v, ByteString requestAad) {
    byte[] head = (k.name + "|" + v + "|").getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[head.length + requestAad.size()];
    System.arraycopy(head, 0, out, 0, head.length);
    requestAad.copyTo(out, head.length);
    return out;
  }

  private static void checkCrc(ByteString data, boolean has, Int64Value crc, String field) {
    if (has && crc.getValue() != crc32c(data)) {
      throw status(
          Status.Code.INVALID_ARGUMENT, "The checksum in field " + field + " did not match");
    }
  }

  EncryptResponse encrypt(EncryptRequest r) {
    Key k = key(r.getName());
    checkCrc(r.getPlaintext(), r.hasPlaintextCrc32C(), r.getPlaintextCrc32C(), "plaintext_crc32c");
    checkCrc(
        r.getAdditionalAuthenticatedData(),
        r.hasAdditionalAuthenticatedDataCrc32C(),
        r.getAdditionalAuthenticatedDataCrc32C(),
        "additional_authenticated_data_crc32c");
    int v = k.primary;
    Version ver = k.versions.get(v - 1);
    if (ver.state != CryptoKeyVersionState.ENABLED) {
      throw status(Status.Code.FAILED_PRECONDITION, versionName(k, v) + " is not enabled.");
    }
    byte[] nonce = new byte[12];
    random.nextBytes(nonce);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.ENCRYPT_MODE,
          new SecretKeySpec(ver.material, "AES"),
          new GCMParameterSpec(128, nonce));
      c.updateAAD(aad(k, v, r.getAdditionalAuthenticatedData()));
      byte[] ct = c.doFinal(r.getPlaintext().toByteArray());
      ByteString blob =
          ByteString.copyFrom(
              ByteBuffer.allocate(4 + 12 + ct.length).putInt(v).put(nonce).put(ct).flip());
      long crc = crc32c(blob) ^ (damageCiphertextChecksum ? 1 : 0);
      return EncryptResponse.newBuilder()
          .setName(versionName(k, v))
          .setCiphertext(blob)
          .setCiphertextCrc32C(Int64Value.of(crc))
          .setVerifiedPlaintextCrc32C(r.hasPlaintextCrc32C())
          .setVerifiedAdditionalAuthenticatedDataCrc32C(r.hasAdditionalAuthenticatedDataCrc32C())
          .build();
    } catch (GeneralSecurityException e) {
      throw status(Status.Code.INTERNAL, String.valueOf(e));
    }
  }

  DecryptResponse decrypt(DecryptRequest r) {
    Key k = key(r.getName());
    checkCrc(
        r.getCiphertext(), r.hasCiphertextCrc32C(), r.getCiphertextCrc32C(), "ciphertext_crc32c");
    checkCrc(
        r.getAdditionalAuthenticatedData(),
        r.hasAdditionalAuthenticatedDataCrc32C(),
        r.getAdditionalAuthenticatedDataCrc32C(),
        "additional_authenticated_data_crc32c");
    byte[] blob = r.getCiphertext().toByteArray();
    String failed = "Decryption failed: verify that 'name' refers to the correct CryptoKey.";
    if (blob.length < 4 + 12 + 16) {
      throw status(Status.Code.INVALID_ARGUMENT, failed);
    }
    int v = ByteBuffer.wrap(blob).getInt();
    if (v < 1 || v > k.versions.size()) {
      throw status(Status.Code.INVALID_ARGUMENT, failed);
    }
    Version ver = k.versions.get(v - 1);
    if (ver.state != CryptoKeyVersionState.ENABLED) {
      throw status(Status.Code.FAILED_PRECONDITION, versionName(k, v) + " is not enabled.");
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.DECRYPT_MODE,
          new SecretKeySpec(ver.material, "AES"),
          new GCMParameterSpec(128, blob, 4, 12));
      c.updateAAD(aad(k, v, r.getAdditionalAuthenticatedData()));
      ByteString plain = ByteString.copyFrom(c.doFinal(blob, 16, blob.length - 16));
      return DecryptResponse.newBuilder()
          .setPlaintext(plain)
          .setPlaintextCrc32C(Int64Value.of(crc32c(plain)))
          .build();
    } catch (AEADBadTagException e) {
      throw status(Status.Code.INVALID_ARGUMENT, failed);
    } catch (GeneralSecurityException e) {
      throw status(Status.Code.INTERNAL, String.valueOf(e));
    }
  }

  CryptoKeyVersion createVersion(CreateCryptoKeyVersionRequest r) {
    Key k = key(r.getParent());
    synchronized (k) {
      k.versions.add(new Version(material()));
      return version(k, k.versions.size());
    }
  }

  CryptoKey updatePrimary(UpdateCryptoKeyPrimaryVersionRequest r) {
    Key k = key(r.getName());
    int v;
    try {
      v = Integer.parseInt(r.getCryptoKeyVersionId());
    } catch (NumberFormatException e) {
      throw status(
          Status.Code.INVALID_ARGUMENT, "crypto_key_version_id " + r.getCryptoKeyVersionId());
    }
    if (v < 1 || v > k.versions.size()) {
      throw status(Status.Code.NOT_FOUND, versionName(k, v) + " not found.");
    }
    if (k.versions.get(v - 1).state != CryptoKeyVersionState.ENABLED) {
      throw status(Status.Code.FAILED_PRECONDITION, versionName(k, v) + " is not enabled.");
    }
    k.primary = v;
    return describe(k);
  }

  ListCryptoKeyVersionsResponse listVersions(ListCryptoKeyVersionsRequest r) {
    Key k = key(r.getParent());
    int start = r.getPageToken().isEmpty() ? 0 : Integer.parseInt(r.getPageToken());
    // Small pages, so that paging is exercised.
    int end = Math.min(k.versions.size(), start + Math.min(2, Math.max(1, r.getPageSize())));
    ListCryptoKeyVersionsResponse.Builder out =
        ListCryptoKeyVersionsResponse.newBuilder().setTotalSize(k.versions.size());
    for (int i = start; i < end; i++) {
      out.addCryptoKeyVersions(version(k, i + 1));
    }
    if (end < k.versions.size()) {
      out.setNextPageToken(Integer.toString(end));
    }
    return out.build();
  }

  CryptoKeyVersion destroyVersion(DestroyCryptoKeyVersionRequest r) {
    Key k = key(r.getName());
    int v = Integer.parseInt(r.getName().substring(r.getName().lastIndexOf('/') + 1));
    if (v < 1 || v > k.versions.size()) {
      throw status(Status.Code.NOT_FOUND, r.getName() + " not found.");
    }
    Version ver = k.versions.get(v - 1);
    if (ver.state != CryptoKeyVersionState.ENABLED && ver.state != CryptoKeyVersionState.DISABLED) {
      throw status(
          Status.Code.FAILED_PRECONDITION, r.getName() + " is already scheduled for destruction.");
    }
    ver.state = CryptoKeyVersionState.DESTROY_SCHEDULED;
    return version(k, v);
  }
}
