package dev.loam.meta.command;

/**
 * Records the cluster id, minted once per cluster, so that two clusters pointed at one object store
 * can tell each other's data apart. The first InitCluster applied sets it; every later one, with
 * the same id or another, changes nothing and gets the recorded id back, so a node that lost the
 * race, or retries after an unknown outcome, learns the id that won instead of a refusal.
 *
 * <p>{@code clusterId} must be {@link #isValidClusterId valid} (1..{@link #MAX_LENGTH} characters
 * of {@code [A-Za-z0-9_-]}: a ULID's 26 Crockford characters fit); the state machine refuses
 * anything else with INVALID, the codec carries any string.
 */
public record InitCluster(Origin origin, String clusterId) implements Command {
  /** The longest cluster id: a bound on what the state and every snapshot carry. */
  public static final int MAX_LENGTH = 64;

  /**
   * Whether {@code id} is 1..{@link #MAX_LENGTH} characters of {@code [A-Za-z0-9_-]}. ASCII only,
   * so that the id is the same bytes in object keys, logs and every encoding.
   */
  public static boolean isValidClusterId(String id) {
    if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char ch = id.charAt(i);
      boolean ok =
          (ch >= 'A' && ch <= 'Z')
              || (ch >= 'a' && ch <= 'z')
              || (ch >= '0' && ch <= '9')
              || ch == '_'
              || ch == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
