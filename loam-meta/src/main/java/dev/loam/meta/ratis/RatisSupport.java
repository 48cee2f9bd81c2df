package dev.loam.meta.ratis;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;

/**
 * Whether Apache Ratis is on the class path. loam-meta declares Ratis optional, so that a
 * single-node host (the embedded metastore) does not carry it; a host that runs the Ratis metastore
 * adds {@code dev.loam:loam-meta-ratis}, which brings it. Asking for a Ratis replica without it
 * fails here, with the artifact to add, instead of with a {@link NoClassDefFoundError} deep inside
 * a start. This class names no Ratis type, so it loads without Ratis.
 */
final class RatisSupport {
  /** The artifact a host adds for cluster mode. */
  static final String ARTIFACT = "dev.loam:loam-meta-ratis";

  /** A class of each Ratis artifact the replica needs. */
  private static final String[][] REQUIRED = {
    {"org.apache.ratis.server.RaftServer", "org.apache.ratis:ratis-server"},
    {"org.apache.ratis.client.RaftClient", "org.apache.ratis:ratis-client"},
    {"org.apache.ratis.grpc.GrpcFactory", "org.apache.ratis:ratis-grpc"},
    {"org.apache.ratis.metrics.impl.MetricRegistriesImpl", "org.apache.ratis:ratis-metrics-default"}
  };

  private static volatile boolean present;

  private RatisSupport() {}

  /**
   * Throws INVALID naming {@link #ARTIFACT} and the missing Ratis artifact unless every Ratis
   * artifact the replica needs is on the class path.
   */
  static void require() {
    if (present) {
      return;
    }
    ClassLoader loader = RatisSupport.class.getClassLoader();
    for (String[] r : REQUIRED) {
      try {
        Class.forName(r[0], false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new LoamException(
            Kind.INVALID,
            "the Ratis metastore (cluster mode) needs Apache Ratis on the class path: add the"
                + " dependency "
                + ARTIFACT
                + " (it brings Ratis "
                + "at the version Loam is tested with); missing artifact="
                + r[1]
                + " class="
                + r[0]);
      }
    }
    present = true;
  }
}
