package dev.loam.examples.server;

import dev.loam.error.LoamException;
import java.net.BindException;
import java.util.function.Supplier;

/**
 * A step of a launcher's start-up that failed, named by the flag whose value it used ({@code
 * --http-port 8081: cannot bind 127.0.0.1:8081: Address already in use}), so the one line the
 * launcher prints before it exits says what to change. Also catches what a library throws without
 * declaring it (Netty rethrows a {@link BindException}, a checked exception, as it is).
 */
final class StartFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private StartFailure(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Runs one start step; any failure becomes a StartFailure whose message is {@code what}, then
   * what went wrong.
   *
   * @param what the step, naming its flag and value ({@code --http-port 8081})
   * @param bindAddress the address the step binds, for the message of a bind failure (or null)
   */
  static <T> T step(String what, String bindAddress, Supplier<T> step) {
    try {
      return step.get();
    } catch (Throwable e) {
      if (e instanceof StartFailure sf) {
        throw sf;
      }
      if (e instanceof VirtualMachineError vm) {
        throw vm;
      }
      throw new StartFailure(what + ": " + describe(e, bindAddress), e);
    }
  }

  /**
   * One line for {@code e}: a start step's own message, a bind failure as such, else the error's
   * text (a Loam error with its kind) and that of its innermost cause.
   */
  static String describe(Throwable e, String bindAddress) {
    if (e instanceof StartFailure) {
      return e.getMessage();
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return "cannot bind "
            + (bindAddress == null ? "its address" : bindAddress)
            + ": "
            + t.getMessage();
      }
    }
    String text =
        e instanceof LoamException le ? le.kind() + ": " + le.getMessage() : String.valueOf(e);
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String cause =
        root.getMessage() == null
            ? root.getClass().getSimpleName()
            : root.getClass().getSimpleName() + ": " + root.getMessage();
    return root == e ? text : text + " (caused by " + cause + ")";
  }
}
