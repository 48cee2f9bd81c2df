package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * An append whose commit may or may not have happened (stream-engine.txt §3): an attempt timed out
 * or its answer was lost, and the writer's 60 s budget for new attempts ran out, or a later attempt
 * was refused in a way that proves nothing after an unknown one. Read the partition to find out.
 */
public class CommitUnknownException extends LoamException {
  private static final long serialVersionUID = 1L;

  public CommitUnknownException(String message, Throwable cause) {
    super(Kind.OUTCOME_UNKNOWN, message, cause);
  }
}
