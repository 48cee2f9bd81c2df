package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * A stream's durability class: how its appends become durable before they are acknowledged. Chosen
 * when the stream is created ({@link StreamSpec#withClass}) and fixed for its life.
 */
public enum Durability {
  /** Leaderless; one WAL object in the node's object store per flush. The default. */
  STANDARD("standard"),
  /**
   * Leaderless; each WAL object is written to three zonal stores and acknowledged on two (the node
   * needs an express store, {@code LoamNode.Builder.expressStore}).
   */
  EXPRESS("express"),
  /** Owned, a Raft journal per stream group; not available yet (creating such a stream fails). */
  QUORUM("quorum");

  private final String wireName;

  Durability(String wireName) {
    this.wireName = wireName;
  }

  /** The lower-case name the HTTP API and the object keys use. */
  public String wireName() {
    return wireName;
  }

  /** The class with this wire name; an unknown name is an {@code INVALID} error naming it. */
  public static Durability fromWireName(String name) {
    for (Durability d : values()) {
      if (d.wireName.equals(name)) {
        return d;
      }
    }
    throw new LoamException(
        LoamException.Kind.INVALID,
        "unknown durability class class=" + name + " (standard, express or quorum)");
  }
}
