package dev.loam.client;

import java.util.List;

/**
 * Following owner redirects did not reach an owner within the hop limit, or a redirect pointed back
 * at a node already visited (ownership moving during the call, or views that disagree). Retryable:
 * a moment later the nodes agree again.
 */
public final class RedirectLimitException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  private final List<String> hops;

  public RedirectLimitException(String message, List<String> hops) {
    super("redirect_limit", 307, message, hops.isEmpty() ? null : hops.get(0), null);
    this.hops = List.copyOf(hops);
  }

  /** The URLs visited, in order. */
  public List<String> hops() {
    return hops;
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
