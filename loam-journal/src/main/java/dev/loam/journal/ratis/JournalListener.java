package dev.loam.journal.ratis;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;

/** Told of each entry a replica applies for one journal, and its result, in log order. */
@FunctionalInterface
public interface JournalListener {
  /** Called on the journal's apply thread; must not block. */
  void applied(JournalEntry entry, JournalResult result);

  /**
   * The replica's state was replaced by a snapshot (one installed from the leader after this
   * replica fell behind its log purge): entries up to the snapshot arrive without {@link #applied},
   * so a waiter rechecks what it waits for. Called outside the state lock.
   */
  default void reloaded() {}
}
