package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * A client-built RecordBatch that {@link Log#appendBatch} refused before anything was written: a
 * field failed validation (magic, CRC-32C, lengths, record count, offset deltas, a corrupt records
 * section) or the batch uses a feature Loam does not store (transactional or control batches). The
 * message names the field. Kind INVALID: the same bytes fail again.
 */
public class InvalidBatchException extends LoamException {
  private static final long serialVersionUID = 1L;

  public InvalidBatchException(String message, Throwable cause) {
    super(Kind.INVALID, message, cause);
  }
}
