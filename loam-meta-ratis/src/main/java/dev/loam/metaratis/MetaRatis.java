package dev.loam.metaratis;

/**
 * The artifact {@code dev.loam:loam-meta-ratis}: what puts Apache Ratis on a host's class path for
 * loam-meta's replicated metastore ({@code dev.loam.meta.ratis.RatisMetastore}), which loam-meta
 * declares as an optional dependency. It holds no code of its own besides this description; its
 * dependencies are the point.
 */
public final class MetaRatis {
  private MetaRatis() {}
}
