package dev.loam.sim;

/**
 * A host application's part in a {@link Simulation}: its own streams, its own actions on the
 * simulated cluster while faults run, and its own invariants, judged with the harness's
 * (docs/reference/simulation-for-hosts.md). Every method runs on the simulation's one thread, which
 * is a Loam thread: a {@code join()} or {@code get()} of a Loam future that is not done fails at
 * once with {@code BlockingOnLoamThreadException} and is reported as a violation. Compose the
 * futures instead, and use {@link HostContext#await} in {@link #setup} and {@link #validate}.
 */
public interface HostWorkload {
  /** No host part: the harness's own workload only. */
  HostWorkload NONE = new HostWorkload() {};

  /**
   * After the harness's setup, with the faults still off: create the host's namespaces and streams.
   * {@link HostContext#await} may be used.
   */
  default void setup(HostContext host) {}

  /**
   * At the start of the workload phase (faults on): schedule the host's actions on {@link
   * HostContext#scheduler()}, in simulated time, until {@link HostContext#workloadEnd()}. Never
   * blocks; each action composes its futures.
   */
  default void start(HostContext host) {}

  /**
   * After healing and the harness's read-back: check what the host saw against what the cluster
   * holds, reporting each broken invariant with {@link HostContext#violation}. {@link
   * HostContext#await} may be used.
   */
  default void validate(HostContext host) {}
}
