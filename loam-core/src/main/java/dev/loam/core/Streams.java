package dev.loam.core;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.StreamInfo;

/** Name lookups on the local metastore replica that every request path starts with. */
public final class Streams {
  private Streams() {}

  /** The stream {@code namespace/stream} as the local replica sees it; NOT_FOUND if absent. */
  public static StreamInfo resolve(Metastore meta, String namespace, String stream) {
    return meta.read(r -> r.stream(namespace, stream))
        .orElseThrow(
            () ->
                new LoamException(
                    Kind.NOT_FOUND, "stream not found stream=" + namespace + "/" + stream));
  }

  /**
   * Whether {@code name} is a valid source name of a fenced append: Kafka's topic-name rules,
   * 1..249 of {@code [A-Za-z0-9._-]}, not {@code .} or {@code ..} (the metastore checks the same).
   */
  public static boolean validSourceName(String name) {
    if (name == null || name.isEmpty() || name.length() > 249) {
      return false;
    }
    if (name.equals(".") || name.equals("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char ch = name.charAt(i);
      boolean ok =
          (ch >= 'a' && ch <= 'z')
              || (ch >= 'A' && ch <= 'Z')
              || (ch >= '0' && ch <= '9')
              || ch == '.'
              || ch == '_'
              || ch == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
