package dev.loam.core;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.util.List;

/**
 * The bucket's key scheme: the one place that builds and recognises the keys Loam writes
 * (docs/formats/bucket-layout.md is its written copy).
 *
 * <ul>
 *   <li>{@code wal/<class>/<cluster_id>/<node_id>/<ulid>.wal}: a WAL object of durability class
 *       {@code standard} or {@code express} (stream-engine.txt §3), written once with
 *       create-if-absent by the node it names.
 *   <li>{@code seg/<cluster_id>/<stream_id>/<partition>/<base_offset>-<ulid>.seg}: a segment made
 *       by the segmenter from WAL-backed index entries (§5).
 *   <li>{@code seg/<cluster_id>/<stream_id>/<partition>/<first_offset>-<ulid>.cseg}: a compacted
 *       segment, made by the compactor of a compacted stream.
 *   <li>{@code changelog/<cluster_id>/<stream_id>/<partition>/<offset>.ckpt}: a changelog worker's
 *       state checkpoint (docs/design/changelog.md "The state checkpoint"), written with
 *       create-if-absent, deleted by the worker once a newer one exists; not listed by GC.
 *   <li>{@code loam-cluster}: the store root's cluster marker ({@link ClusterMarker}).
 * </ul>
 *
 * <p>Every data key names the cluster that wrote it, so a cluster's orphan GC lists only its own
 * prefixes ({@link #gcPrefixes}) and cannot see, let alone delete, another cluster's objects in the
 * same store root: the guarantee is in the keys, not in a check. Keys written before the cluster id
 * was part of them ({@code wal/<class>/<node_id>/<ulid>.wal}, {@code seg/<stream_id>/...}) stay
 * readable (the index names every object by its full key) but are never listed by GC.
 *
 * <p>Every key names a ULID drawn when the object is written, so no two writers ever build the same
 * key and orphan GC can tell an object's age from its key alone.
 */
public final class ObjectLayout {
  /** Every WAL object's key starts with this. */
  public static final String WAL_PREFIX = "wal/";

  /** Every segment's key (compacted or not) starts with this. */
  public static final String SEGMENT_PREFIX = "seg/";

  /** The key prefix of express WAL objects, which live in the express (zonal) store. */
  public static final String EXPRESS_WAL_PREFIX = walPrefix(DurabilityClass.EXPRESS);

  /** The key prefix of standard WAL objects. */
  public static final String STANDARD_WAL_PREFIX = walPrefix(DurabilityClass.STANDARD);

  /** Every WAL object's key ends with this. */
  public static final String WAL_SUFFIX = ".wal";

  /** A segment's key ends with this. */
  public static final String SEGMENT_SUFFIX = ".seg";

  /** A compacted segment's key ends with this. */
  public static final String COMPACTED_SEGMENT_SUFFIX = ".cseg";

  private ObjectLayout() {}

  /** {@code changelog/<cluster_id>/}: the root of this cluster's changelog checkpoints. */
  public static String changelogRoot(String clusterId) {
    return "changelog/" + clusterId + "/";
  }

  /** {@code wal/<class>/}: the prefix of one durability class's WAL objects. */
  public static String walPrefix(DurabilityClass durabilityClass) {
    return WAL_PREFIX + durabilityClass.wireName() + "/";
  }

  /**
   * The prefixes that together hold every data object cluster {@code clusterId} writes, one per
   * store a node routes to (the express prefix lives in its own store): what orphan GC lists.
   */
  public static List<String> gcPrefixes(String clusterId) {
    return List.of(
        STANDARD_WAL_PREFIX + clusterId + "/",
        EXPRESS_WAL_PREFIX + clusterId + "/",
        SEGMENT_PREFIX + clusterId + "/");
  }

  /** The key of the WAL object {@code nodeId} of {@code clusterId} writes with {@code ulid}. */
  public static String walKey(
      DurabilityClass durabilityClass, String clusterId, String nodeId, Ulid ulid) {
    return walPrefix(durabilityClass) + clusterId + "/" + nodeId + "/" + ulid + WAL_SUFFIX;
  }

  /** The key of a segment of one partition whose first record is {@code baseOffset}. */
  public static String segmentKey(
      String clusterId, long streamId, int partition, long baseOffset, Ulid ulid) {
    return partitionSegmentPrefix(clusterId, streamId, partition)
        + baseOffset
        + "-"
        + ulid
        + SEGMENT_SUFFIX;
  }

  /** The key of a compacted segment of one partition that covers offsets from {@code from}. */
  public static String compactedSegmentKey(
      String clusterId, long streamId, int partition, long from, Ulid ulid) {
    return partitionSegmentPrefix(clusterId, streamId, partition)
        + from
        + "-"
        + ulid
        + COMPACTED_SEGMENT_SUFFIX;
  }

  private static String partitionSegmentPrefix(String clusterId, long streamId, int partition) {
    return SEGMENT_PREFIX + clusterId + "/" + streamId + "/" + partition + "/";
  }

  /** Whether {@code key} is a WAL object's (of any class). */
  public static boolean isWal(String key) {
    return key.startsWith(WAL_PREFIX);
  }

  /** Whether {@code key} is an express WAL object's, which lives in the express store. */
  public static boolean isExpressWal(String key) {
    return key.startsWith(EXPRESS_WAL_PREFIX);
  }

  /** Whether {@code key} is a segment's (compacted or not). */
  public static boolean isSegment(String key) {
    return key.startsWith(SEGMENT_PREFIX);
  }

  /** Whether {@code key} is a compacted segment's. */
  public static boolean isCompactedSegment(String key) {
    return key.startsWith(SEGMENT_PREFIX) && key.endsWith(COMPACTED_SEGMENT_SUFFIX);
  }
}
