package dev.loam.wal;

import dev.loam.error.LoamException;

/**
 * A stream's durability class (stream-engine.txt §2): how its writes become durable. The wire code
 * is stored in WAL object headers and metastore snapshots and never changes meaning.
 */
public enum DurabilityClass {
  /** Leaderless; one WAL object in the standard bucket per flush (default flush 250 ms). */
  STANDARD(0, "standard"),
  /** Leaderless; WAL objects written to 3 zonal buckets, acked on 2 (default flush 5 ms). */
  EXPRESS(1, "express"),
  /** Owned; a Raft journal per stream group acks on majority (§4). */
  QUORUM(2, "quorum");

  private final int code;
  private final String wireName;

  DurabilityClass(int code, String wireName) {
    this.code = code;
    this.wireName = wireName;
  }

  /** The stable one-byte code used in binary formats. */
  public int code() {
    return code;
  }

  /** The lower-case name used in object keys ({@code wal/<class>/...}) and APIs. */
  public String wireName() {
    return wireName;
  }

  /** The class with this binary code; an unknown code is an {@code INVALID} error. */
  public static DurabilityClass fromCode(int code) {
    for (DurabilityClass c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    throw new LoamException(LoamException.Kind.INVALID, "unknown durability class code=" + code);
  }

  /** The class with this wire name; an unknown name is an {@code INVALID} error. */
  public static DurabilityClass fromWireName(String name) {
    for (DurabilityClass c : values()) {
      if (c.wireName.equals(name)) {
        return c;
      }
    }
    throw new LoamException(LoamException.Kind.INVALID, "unknown durability class name=" + name);
  }
}
