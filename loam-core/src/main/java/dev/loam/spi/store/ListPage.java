package dev.loam.spi.store;

import java.util.List;
import java.util.Optional;

/**
 * One page of a listing: objects in key order and, when more may follow, the key to pass as {@code
 * startAfter} for the next page.
 */
public record ListPage(List<ObjectInfo> objects, Optional<String> nextStartAfter) {
  public ListPage {
    objects = List.copyOf(objects);
  }
}
