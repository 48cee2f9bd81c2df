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
}
