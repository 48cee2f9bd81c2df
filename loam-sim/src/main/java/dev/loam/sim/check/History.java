package dev.loam.sim.check;

import dev.loam.api.AppendResult;
import dev.loam.sim.SimStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the clients saw, in the spirit of a Jepsen history: every append with each attempt's
 * verdict. The actors record it as answers arrive; the trim check and the final validation judge
 * the cluster against it.
 */
public final class History {
  /** One append as the client saw it: every attempt's verdict. */
  public static final class Append {
    private final int id;
    private final SimStream stream;
    private final List<String> values = new ArrayList<>();
    private final boolean idempotent;

    /** Simulated time the first attempt was sent, and whether that node's clock was true then. */
    private long sentNanos = -1;

    private boolean sentUnskewed;

    /** When the client stamped its records itself (a Kafka batch's create time), or -1. */
    private long clientStampNanos = -1;

    private AppendResult acked;
    private int attempts;
    private boolean unknown; // some attempt's outcome was unknown

    private Append(int id, SimStream stream, boolean idempotent) {
      this.id = id;
      this.stream = stream;
      this.idempotent = idempotent;
    }

    /** The append's number in the run, part of each of its record values. */
    public int id() {
      return id;
    }

    /** The stream appended to. */
    public SimStream stream() {
      return stream;
    }

    /** The values of its records, in order; every value is unique in the run. */
    public List<String> values() {
      return Collections.unmodifiableList(values);
    }

    /** Sent by an idempotent producer (retried with the same identity), or a plain append. */
    public boolean idempotent() {
      return idempotent;
    }

    /** Simulated time the first attempt was sent, or -1 before it. */
    public long sentNanos() {
      return sentNanos;
    }

    /**
     * The client stamped the records itself at {@code nanos} (a Kafka producer's batch: its create
     * time, fixed before the first attempt, which may wait for a node to send it to).
     */
    public void clientStamped(long nanos) {
      clientStampNanos = nanos;
    }

    /**
     * The earliest time the records' timestamps can hold by a true clock: the client's own stamp
     * when it set one, else the first attempt (the node stamps each attempt at or after it).
     */
    public long earliestTimestampNanos() {
      return clientStampNanos >= 0 ? Math.min(clientStampNanos, sentNanos) : sentNanos;
    }

    /** Every attempt so far went through a node whose clock was true. */
    public boolean sentUnskewed() {
      return sentUnskewed;
    }

    /** The acknowledgement, or null while none arrived. */
    public AppendResult acked() {
      return acked;
    }

    /** Attempts sent so far. */
    public int attempts() {
      return attempts;
    }

    /** Some attempt's outcome was unknown: the append may or may not be in the log. */
    public boolean unknown() {
      return unknown;
    }

    /** A record with this value is part of the append. */
    public void addValue(String value) {
      values.add(value);
    }

    /** An attempt is sent at {@code nanos} through a node whose clock is true or not. */
    public void attempt(long nanos, boolean unskewed) {
      if (sentNanos < 0) {
        sentNanos = nanos;
        sentUnskewed = true;
      }
      sentUnskewed &= unskewed;
      attempts++;
    }

    /** An attempt was acknowledged with these positions. */
    public void acknowledged(AppendResult result) {
      acked = result;
    }

    /** An attempt failed with OUTCOME_UNKNOWN: it may have been appended. */
    public void outcomeUnknown() {
      unknown = true;
    }
  }

  private final List<Append> appends = new ArrayList<>();

  /** A new append, numbered in the order appends begin. */
  public Append begin(SimStream stream, boolean idempotent) {
    Append a = new Append(appends.size(), stream, idempotent);
    appends.add(a);
    return a;
  }

  /** Every append, in the order they began. */
  public List<Append> appends() {
    return Collections.unmodifiableList(appends);
  }
}
