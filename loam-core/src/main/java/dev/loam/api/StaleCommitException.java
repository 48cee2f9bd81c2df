package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * The metastore refused a first commit attempt because the WAL object is older than the commit
 * window (15 min by default): nothing was committed, and the append may be retried.
 */
public class StaleCommitException extends LoamException {
  private static final long serialVersionUID = 1L;

  public StaleCommitException(String message) {
    super(Kind.CONFLICT, message);
  }
}
