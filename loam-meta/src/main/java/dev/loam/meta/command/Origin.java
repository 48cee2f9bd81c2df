package dev.loam.meta.command;

import java.util.Objects;

/**
 * Who proposed a command and when, by the proposer's injected clock. Every command carries it: the
 * state machine refuses a command whose node epoch is not the registered one (zombie fencing), and
 * the proposing path refuses a stamp too far ahead of its own clock.
 */
public record Origin(String nodeId, long nodeEpoch, long stampMillis) {
  public Origin {
    Objects.requireNonNull(nodeId, "nodeId");
  }
}
