package dev.loam.journal.node;

import dev.loam.spi.quorum.QuorumHost;
import dev.loam.spi.quorum.QuorumHostContext;
import dev.loam.spi.quorum.QuorumHostFactory;

/**
 * The {@link QuorumHostFactory} the node runtime finds with {@link java.util.ServiceLoader} when
 * {@code loam-journal} is on the class path: starts a {@link JournalNodeHost}.
 */
public final class JournalHostFactory implements QuorumHostFactory {
  @Override
  public QuorumHost start(QuorumHostContext ctx) {
    return JournalNodeHost.start(ctx);
  }
}
