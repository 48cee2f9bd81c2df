package dev.loam.core.read;

import dev.loam.error.LoamException;

/**
 * An object named by an index entry is missing: INTERNAL (data loss) unless a fresh index view
 * shows the entry was replaced meanwhile (swap, trim, then GC), which the fetch path checks.
 */
public final class ObjectGoneException extends LoamException {
  ObjectGoneException(String message, Throwable cause) {
    super(Kind.INTERNAL, message, cause);
  }
}
