package dev.loam.test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The thread-leak check of these tests: what a host's check would flag after a close. */
final class Threads {
  private Threads() {}

  static Set<Thread> live() {
    return new HashSet<>(Thread.getAllStackTraces().keySet());
  }

  /**
   * Threads alive now that were not in {@code before} and are non-daemon, or Loam's, Ratis's or
   * gRPC's by name. Waits for none: close() must have ended them.
   */
  static List<String> leftSince(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.isAlive())
        .filter(
            t -> !t.isDaemon() || t.getName().matches("(?i).*(loam|ratis|grpc|timer|raft|netty).*"))
        .map(t -> t.getName() + (t.isDaemon() ? " (daemon)" : ""))
        .collect(Collectors.toList());
  }
}
