package dev.loam.spi.quorum;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.util.ServiceLoader;

/**
 * Starts a node's {@link QuorumHost}. The implementation is in the {@code loam-journal} module,
 * found with {@link ServiceLoader}: a host that does not give its nodes a journal address never
 * loads it, and does not need the module on its class path.
 */
public interface QuorumHostFactory {
  /**
   * Starts the journal server on {@code ctx.address()} and the placement agent.
   *
   * @throws LoamException UNAVAILABLE if the server cannot start (port taken, directory unusable),
   *     INVALID if the address is malformed
   */
  QuorumHost start(QuorumHostContext ctx);

  /**
   * The implementation on the class path.
   *
   * @throws LoamException INVALID naming the missing module when there is none
   */
  static QuorumHostFactory get() {
    QuorumHostFactory f = Holder.FACTORY;
    if (f == null) {
      throw new LoamException(
          Kind.INVALID,
          "a journal port needs the loam-journal module on the class path (dev.loam:loam-journal)");
    }
    return f;
  }

  /** Lazy holder of the loaded implementation. */
  final class Holder {
    static final QuorumHostFactory FACTORY =
        ServiceLoader.load(QuorumHostFactory.class, QuorumHostFactory.class.getClassLoader())
            .findFirst()
            .orElse(null);

    private Holder() {}
  }
}
