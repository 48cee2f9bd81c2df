package dev.loam.core.crypto;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.object.WalObjectReader;
import dev.loam.wal.ulid.Ulid;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/** Whether a chunk sealed under one key object opens under another: the same key material. */
final class SealedRoundTrip {
  private SealedRoundTrip() {}

  static boolean opens(KeyEncryptionKey sealer, KeyEncryptionKey opener) {
    String key = "wal/standard/c/n/x.wal";
    WalObjectBuilder b =
        new WalObjectBuilder(
            "n", new Ulid(1, 1), DurabilityClass.STANDARD, key, new SplittableRandom(1));
    b.add(1, 0, ChunkEncoding.KAFKA, new byte[] {4, 2}, sealer);
    WalObject o = b.build();
    ByteBuffer plain =
        WalObjectReader.openChunk(o.chunk(0), o.chunks().get(0), 0, key, id -> opener);
    return plain.remaining() == 2 && plain.get(0) == 4 && plain.get(1) == 2;
  }
}
