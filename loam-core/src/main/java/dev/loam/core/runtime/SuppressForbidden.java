package dev.loam.core.runtime;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the few driver classes allowed to touch the real clock, entropy or threads (STYLE.md §5);
 * the determinism check (forbiddenapis) skips them. Always say why next to it.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface SuppressForbidden {
  /** Why this place needs the real thing. */
  String reason();
}
