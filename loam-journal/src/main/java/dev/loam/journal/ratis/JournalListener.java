package dev.loam.journal.ratis;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;

/** Told of each entry a replica applies for one journal, and its result, in log order. */
@FunctionalInterface
public interface JournalListener {
  /** Called on the journal's apply thread; must not block. */
  void applied(JournalEntry entry, JournalResult result);
}
