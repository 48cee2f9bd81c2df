package dev.loam.meta;

import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;

/**
 * Told of every command applied on the local replica, in log order, on the apply thread; the
 * applied-index watch that long-polls wait on (stream-engine.txt §6). Must be quick and must not
 * block or call back into the metastore's write path.
 */
@FunctionalInterface
public interface ApplyListener {
  void onApplied(long index, Command command, Outcome outcome);
}
