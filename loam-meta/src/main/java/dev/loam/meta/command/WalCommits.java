package dev.loam.meta.command;

import java.util.ArrayList;
import java.util.List;

/**
 * The WAL objects an applied command committed, for apply listeners that follow the offset index: a
 * {@link CommitWal}, each member of a {@link CommitWalGroup}, or either inside an {@link
 * OwnerFenced}. Only objects whose outcome is {@link Outcome.WalCommitted} are listed; a refused
 * object or group lists nothing.
 */
public final class WalCommits {
  private WalCommits() {}

  /** One committed object and its outcome. */
  public record Committed(CommitWal commit, Outcome.WalCommitted outcome) {}

  /** The committed objects of {@code command} given its {@code outcome}, in apply order. */
  public static List<Committed> of(Command command, Outcome outcome) {
    Command inner = command instanceof OwnerFenced f ? f.inner() : command;
    if (inner instanceof CommitWal c && outcome instanceof Outcome.WalCommitted wc) {
      return List.of(new Committed(c, wc));
    }
    if (inner instanceof CommitWalGroup g && outcome instanceof Outcome.WalGroupCommitted gc) {
      List<Committed> out = new ArrayList<>(g.members().size());
      for (int i = 0; i < g.members().size() && i < gc.members().size(); i++) {
        if (gc.members().get(i) instanceof Outcome.WalCommitted wc) {
          out.add(new Committed(g.members().get(i), wc));
        }
      }
      return out;
    }
    return List.of();
  }
}
