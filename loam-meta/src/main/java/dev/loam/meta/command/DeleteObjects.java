package dev.loam.meta.command;

import java.util.List;

/**
 * Confirms that retired objects were deleted from the object store (the GC's last step): their
 * retired records are removed. Keys that are not retired (unknown, or referenced again) are
 * ignored, so a retry is harmless. At most {@link #MAX_KEYS} keys.
 */
public record DeleteObjects(Origin origin, List<String> objectKeys) implements Command {
  /** The object store's delete batch limit. */
  public static final int MAX_KEYS = 1000;

  public DeleteObjects {
    objectKeys = List.copyOf(objectKeys);
  }
}
