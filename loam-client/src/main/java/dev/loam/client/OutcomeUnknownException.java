package dev.loam.client;

/**
 * A write may or may not have been applied: the node answered 504 {@code outcome_unknown}, or the
 * connection failed after the request was sent and the request is not safe to repeat (a produce
 * without an idempotent producer, a create, a delete). Read to find out. An {@link
 * IdempotentProducer} retries these itself and reports this only once its attempts are spent.
 */
public final class OutcomeUnknownException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  public OutcomeUnknownException(int status, String message, String node, Throwable cause) {
    super("outcome_unknown", status, message, node, cause);
  }
}
