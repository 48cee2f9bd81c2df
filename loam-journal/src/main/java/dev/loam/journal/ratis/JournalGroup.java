package dev.loam.journal.ratis;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One journal: its name (the Raft group id is a name-based UUID of it) and its replicas, node id →
 * journal Raft address ({@code host:port}).
 *
 * @param name {@code [A-Za-z0-9._-]{1,128}}
 * @param replicas 1..9 replicas, normally 3; identical on every replica
 */
public record JournalGroup(String name, Map<String, String> replicas) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  /**
   * @throws LoamException INVALID naming the name, replica id or address that is malformed
   */
  public JournalGroup {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(replicas, "replicas");
    if (!ID.matcher(name).matches()) {
      throw new LoamException(Kind.INVALID, "journal name must match " + ID + " journal=" + name);
    }
    if (replicas.isEmpty() || replicas.size() > 9) {
      throw new LoamException(
          Kind.INVALID,
          "a journal needs 1..9 replicas journal=" + name + " replicas=" + replicas.size());
    }
    for (Map.Entry<String, String> e : replicas.entrySet()) {
      if (!ID.matcher(e.getKey()).matches()) {
        throw new LoamException(
            Kind.INVALID, "replica id must match " + ID + " journal=" + name + " id=" + e.getKey());
      }
      JournalSettings.parseAddress(e.getValue(), "journal " + name + " replica " + e.getKey());
    }
    replicas = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(replicas));
  }
}
