package dev.loam.meta.command;

/**
 * Sets one named endpoint of the proposing node ({@code origin.nodeId()}) at its current epoch:
 * where a listener of that node (its Kafka gateway, a gRPC or OTLP port) is reached, so that other
 * nodes and gateways can tell clients. An empty {@code address} removes the endpoint. Idempotent:
 * setting the value already recorded, or removing an absent endpoint, changes nothing and answers
 * the node as it is.
 *
 * <p>Fenced like every node command: a stale epoch is refused STALE_NODE_EPOCH. A {@code name} that
 * is not {@link #isValidName valid}, an {@code address} longer than {@link #MAX_ADDRESS_LENGTH}, or
 * a new name beyond {@link #MAX_ENDPOINTS} per node is refused INVALID; the codec carries any
 * string.
 *
 * <p>Endpoints belong to one process: a registration at a higher epoch (a restart, which may bind
 * elsewhere) starts with none, and the new process's listeners advertise again when they start. A
 * registration at the same epoch (a retry, or the same process after it was declared dead) keeps
 * them.
 */
public record SetNodeEndpoint(Origin origin, String name, String address) implements Command {
  /** The longest endpoint name. */
  public static final int MAX_NAME_LENGTH = 32;

  /** The longest address, in characters: a bound on what one endpoint adds to the state. */
  public static final int MAX_ADDRESS_LENGTH = 255;

  /** Endpoints per node at most (STYLE.md §9): bounds what one node adds to state and snapshot. */
  public static final int MAX_ENDPOINTS = 16;

  /**
   * Whether {@code name} is {@code [a-z][a-z0-9_-]{0,31}}: lower-case ASCII, so that a name is the
   * same bytes in every encoding, a JSON key without escaping, and never two spellings of one
   * listener.
   */
  public static boolean isValidName(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      return false;
    }
    char first = name.charAt(0);
    if (first < 'a' || first > 'z') {
      return false;
    }
    for (int i = 1; i < name.length(); i++) {
      char ch = name.charAt(i);
      boolean ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
