package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * A consumer-group write was refused because its generation is not the group's stored generation (a
 * member of an older rebalance, or a generation that does not go up). Nothing was written.
 */
public final class GroupFencedException extends LoamException {
  public GroupFencedException(String message) {
    super(Kind.FENCED, message);
  }
}
