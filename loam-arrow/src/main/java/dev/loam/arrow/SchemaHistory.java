package dev.loam.arrow;

import dev.loam.error.CorruptionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every schema version an arrow stream has had, version 1 first; a stored batch names the version
 * it was written with. Versions are never removed, so any batch of the stream can be read.
 */
public record SchemaHistory(List<StreamSchema> versions) {
  /** The most versions a stream may have (the frame's schema_version is a u16). */
  public static final int MAX_VERSIONS = 0xffff;

  /**
   * @throws IllegalArgumentException if there is no version or too many
   */
  public SchemaHistory {
    versions = List.copyOf(versions);
    if (versions.isEmpty() || versions.size() > MAX_VERSIONS) {
      throw new IllegalArgumentException("schema versions: " + versions.size());
    }
  }

  /** A history of one version. */
  public static SchemaHistory of(StreamSchema first) {
    return new SchemaHistory(List.of(first));
  }

  /** The newest version's number (1-based). */
  public int latestVersion() {
    return versions.size();
  }

  /** The newest version, the one appends are written with. */
  public StreamSchema latest() {
    return versions.get(versions.size() - 1);
  }

  /**
   * Version {@code v} (1-based).
   *
   * @throws CorruptionException if the stream has no such version (a batch naming it is damaged)
   */
  public StreamSchema version(int v) {
    if (v < 1 || v > versions.size()) {
      throw new CorruptionException(
          "arrow batch schema_version=" + v + " unknown (the stream has " + versions.size() + ")");
    }
    return versions.get(v - 1);
  }

  /**
   * This history with {@code next} as a new version.
   *
   * @throws dev.loam.error.LoamException INVALID if {@code next} is not a valid evolution of the
   *     latest version, naming the field and the reason
   */
  public SchemaHistory evolve(StreamSchema next) {
    Objects.requireNonNull(next, "next");
    latest().checkEvolvesTo(next);
    if (versions.size() == MAX_VERSIONS) {
      throw new dev.loam.error.LoamException(
          dev.loam.error.LoamException.Kind.INVALID, "stream has the most schema versions");
    }
    List<StreamSchema> all = new ArrayList<>(versions);
    all.add(next);
    return new SchemaHistory(all);
  }
}
