package dev.loam.meta.state;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The metastore snapshot (docs/formats/metastore-snapshot.md): magic, version and reserved flags,
 * the header fields, each table's section in a fixed order, and a CRC-32C trailer over everything
 * before it. This class picks the version and frames the bytes; each table writes and reads its own
 * section.
 *
 * <p>Sections by version: 1 holds nodes, namespaces, streams (with partitions) and dedupe records;
 * 2 adds the retired objects; 3 adds the producer-id counter and named consumers; 4 adds node
 * liveness and stream ownership; 5 adds the cluster id (nullable from 6 on); 6 adds the nodes'
 * named endpoints (possibly none from 7 on); 7 adds the API keys (possibly none from 8 on); 8 adds
 * the consumer groups (possibly none from 9 on); 9 adds the CloudEvents dedupe ledger; 10 adds the
 * namespaces' keys; 11 adds the writer leases of fenced appends (possibly no keys); 12 adds the
 * arrow streams' schema versions (possibly no leases); 13 adds the quorum journals' placement
 * (possibly no schemas).
 */
final class SnapshotFormat {
  /** Snapshot magic, ASCII {@code LMSS}. */
  static final int MAGIC = 0x4C4D5353;

  private static final String FORMAT = "metastore snapshot";

  private SnapshotFormat() {}

  /** The oldest version that can hold {@code m}'s state. */
  static int versionFor(MetaStateMachine m) {
    // The oldest version that can hold this state, so a state that never retired anything is
    // byte-identical to a v1 writer's (metastore-snapshot.md read compatibility).
    if (m.journals().hasHints()) {
      return 14;
    } else if (!m.journals().isDefault()) {
      return 13;
    } else if (!m.schemas().isDefault()) {
      return 12;
    } else if (!m.writers().isDefault() || m.dedupe().holdsFencedVerdicts()) {
      return 11;
    } else if (m.namespaceKeys().any()) {
      return 10;
    } else if (!m.events().isDefault()) {
      return 9;
    } else if (!m.groups().isDefault()) {
      return 8;
    } else if (m.apiKeys().any()) {
      return 7;
    } else if (m.cluster().hasEndpoints()) {
      return 6;
    } else if (m.cluster().hasClusterId()) {
      return 5;
    } else if (!m.cluster().ownership().isDefault()) {
      return 4;
    } else if (!m.consumers().isDefault()) {
      return 3;
    } else {
      return m.objects().hasRetired() ? 2 : 1;
    }
  }

  /** The whole state as versioned bytes with a CRC-32C trailer; identical on every replica. */
  static byte[] write(MetaStateMachine m) {
    BinaryWriter w = new BinaryWriter(4096);
    int version = versionFor(m);
    w.i32(MAGIC).i16(version).i16(0); // reserved flags
    w.i64(m.appliedIndex()).i64(m.clockMillis()).i64(m.catalog().nextStreamId());
    m.cluster().writeNodes(w);
    m.catalog().write(w);
    m.dedupe().write(w);
    if (version >= 2) {
      // Version 2 and 3: the retired objects, oldest first (v2: at least one; v3: any number).
      m.objects().writeRetired(w);
    }
    if (version >= 3) {
      // Version 3: the producer-id counter, then the named consumers by key.
      m.consumers().write(w);
    }
    if (version >= 4) {
      m.cluster().ownership().write(w);
    }
    if (version >= 5) {
      // Version 5: the cluster id, always set. Version 6: the id or null, then the endpoints.
      m.cluster().writeClusterId(w);
    }
    if (version >= 6) {
      m.cluster().writeEndpoints(w);
    }
    if (version >= 7) {
      m.apiKeys().write(w);
    }
    if (version >= 8) {
      m.groups().write(w);
    }
    if (version >= 9) {
      m.events().write(w);
    }
    if (version >= 10) {
      m.namespaceKeys().write(w);
    }
    if (version >= 11) {
      // Version 11: the writer leases of fenced appends, by key.
      m.writers().write(w);
    }
    if (version >= 12) {
      m.schemas().write(w);
    }
    if (version >= 13) {
      m.journals().write(w);
    }
    if (version >= 14) {
      m.journals().writeHints(w);
    }
    byte[] body = w.toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(body, 0, body.length);
    return new BinaryWriter(body.length + 4).raw(body).i32((int) crc.getValue()).toByteArray();
  }

  /**
   * Rebuilds a state machine from {@link #write} bytes of any version. Bad magic, version, checksum
   * or structure is a {@link CorruptionException} naming the field.
   */
  static MetaStateMachine read(byte[] snapshot, MetaSettings settings) {
    Objects.requireNonNull(snapshot, "snapshot");
    BinaryReader head = new BinaryReader(FORMAT, snapshot);
    if (snapshot.length < 12) {
      throw head.corrupt("length", "too short length=" + snapshot.length);
    }
    int magic = head.i32("magic");
    if (magic != MAGIC) {
      throw head.corrupt("magic", "bad magic=0x" + Integer.toHexString(magic));
    }
    int version = head.i16("version");
    if (version < 1 || version > MetaStateMachine.SNAPSHOT_VERSION) {
      throw head.corrupt("version", "unsupported version=" + version);
    }
    CRC32C crc = new CRC32C();
    crc.update(snapshot, 0, snapshot.length - 4);
    BinaryReader tail = new BinaryReader(FORMAT, snapshot, snapshot.length - 4, 4);
    int stored = tail.i32("crc32c");
    if (stored != (int) crc.getValue()) {
      throw tail.corrupt(
          "crc32c",
          "checksum mismatch stored=0x"
              + Integer.toHexString(stored)
              + " computed=0x"
              + Long.toHexString(crc.getValue()));
    }
    BinaryReader r = new BinaryReader(FORMAT, snapshot, 6, snapshot.length - 10);
    if (r.i16("flags") != 0) {
      throw r.corrupt("flags", "reserved flags must be 0");
    }
    MetaStateMachine m = new MetaStateMachine(settings);
    m.restoreHeader(r.i64("appliedIndex"), r.i64("clockMillis"));
    long nextStreamId = r.i64("nextStreamId");
    m.cluster().readNodes(r);
    m.catalog().read(r, nextStreamId);
    m.dedupe().read(r);
    m.objects().countReferences(m.catalog().streamsById().values());
    if (version >= 2) {
      m.objects().readRetired(r, version);
    }
    if (version >= 3) {
      m.consumers().read(r);
    }
    if (version >= 4) {
      m.cluster().ownership().read(r, m.cluster().nodes(), m.catalog().streamsById().keySet());
    }
    if (version >= 5) {
      m.cluster().readClusterId(r, version);
    }
    if (version >= 6) {
      m.cluster().readEndpoints(r, version);
    }
    if (version >= 7) {
      m.apiKeys().read(r, version);
    }
    if (version >= 8) {
      m.groups().read(r, version);
    }
    if (version >= 9) {
      m.events().read(r, version);
    }
    if (version >= 10) {
      m.namespaceKeys().read(r, version);
    }
    if (version >= 11) {
      m.writers().read(r);
    }
    if (version >= 12) {
      m.schemas().read(r, version);
    }
    if (version >= 13) {
      m.journals().read(r);
    }
    if (version >= 14) {
      m.journals().readHints(r);
    }
    r.expectEnd();
    return m;
  }
}
