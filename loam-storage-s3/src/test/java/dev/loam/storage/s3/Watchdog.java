package dev.loam.storage.s3;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command as its child and kills the child's whole process tree when the parent process (the
 * test JVM) exits for any reason, a crash or {@code kill -9} included: a shutdown hook in the test
 * JVM does not run then, but {@link ProcessHandle#onExit()} of the parent still fires here.
 *
 * <p>Usage: {@code java -cp test-classes dev.loam.storage.s3.Watchdog <parent-pid> <command...>}.
 */
public final class Watchdog {
  private Watchdog() {}

  public static void main(String[] args) throws Exception {
    long parentPid = Long.parseLong(args[0]);
    List<String> command = Arrays.asList(args).subList(1, args.length);
    Process child = new ProcessBuilder(command).inheritIO().start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> killTree(child.toHandle())));
    CompletableFuture<?> parentGone =
        ProcessHandle.of(parentPid)
            .map(ProcessHandle::onExit)
            .orElse(CompletableFuture.completedFuture(null));
    CompletableFuture.anyOf(parentGone, child.onExit()).join();
    killTree(child.toHandle());
    System.exit(child.isAlive() ? 1 : 0);
  }

  /** Asks the tree to stop, then forces whatever is still running after 10 seconds. */
  static void killTree(ProcessHandle root) {
    root.descendants().forEach(ProcessHandle::destroy);
    root.destroy();
    try {
      root.onExit().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      root.descendants().forEach(ProcessHandle::destroyForcibly);
      root.destroyForcibly();
    }
  }
}
