package dev.loam.core;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The cluster marker: one small object at the store root, {@value #KEY}, that names the cluster the
 * root belongs to (docs/formats/cluster-marker.md). The first node of a cluster creates it with
 * create-if-absent; every node checks it at start and refuses a root that names another cluster.
 *
 * <p>The object is two lines of US-ASCII: {@code loam-cluster 1} (the format and its version) and
 * {@code cluster_id=<id>}, each ending in a line feed. Nothing else is accepted: a marker that does
 * not parse is CORRUPTION, never read as "no marker".
 */
public final class ClusterMarker {
  /** The marker's key, at the store root; outside every data prefix, so GC never lists it. */
  public static final String KEY = "loam-cluster";

  /** The format version this code writes and reads. */
  public static final int VERSION = 1;

  /** What a cluster id may be: a key segment of at most 64 characters, no dot. */
  public static final Pattern CLUSTER_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private static final String MAGIC_LINE = "loam-cluster " + VERSION + "\n";
  private static final String ID_PREFIX = "cluster_id=";
  private static final int MAX_BYTES = 256;

  private ClusterMarker() {}

  /** The marker's bytes for {@code clusterId}. */
  public static byte[] encode(String clusterId) {
    if (!CLUSTER_ID.matcher(clusterId).matches()) {
      throw new LoamException(Kind.INVALID, "invalid cluster id clusterId=" + clusterId);
    }
    return (MAGIC_LINE + ID_PREFIX + clusterId + "\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** The cluster id a marker names; CORRUPTION naming the key if the bytes are not a marker. */
  public static String decode(byte[] bytes) {
    if (bytes.length > MAX_BYTES) {
      throw corrupt("longer than " + MAX_BYTES + " bytes length=" + bytes.length);
    }
    for (byte b : bytes) {
      if (b < 0) {
        throw corrupt("not US-ASCII");
      }
    }
    String s = new String(bytes, StandardCharsets.US_ASCII);
    if (!s.startsWith(MAGIC_LINE)) {
      int nl = s.indexOf('\n');
      String first = nl < 0 ? s : s.substring(0, nl);
      throw corrupt(
          first.startsWith("loam-cluster ")
              ? "unsupported version line=" + first
              : "not a cluster marker");
    }
    String rest = s.substring(MAGIC_LINE.length());
    if (!rest.startsWith(ID_PREFIX)
        || !rest.endsWith("\n")
        || rest.indexOf('\n') != rest.length() - 1) {
      throw corrupt("second line must be cluster_id=<id> and the last");
    }
    String id = rest.substring(ID_PREFIX.length(), rest.length() - 1);
    if (!CLUSTER_ID.matcher(id).matches()) {
      throw corrupt("invalid cluster id");
    }
    return id;
  }

  private static LoamException corrupt(String why) {
    return new LoamException(Kind.CORRUPTION, "unreadable cluster marker: " + why + " key=" + KEY);
  }
}
