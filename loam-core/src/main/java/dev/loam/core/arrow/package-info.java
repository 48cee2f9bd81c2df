/**
 * The node's seam to the arrow encoding (docs/reference/arrow.md): {@link
 * dev.loam.core.arrow.ArrowCodec}, implemented by the optional {@code loam-arrow} module.
 */
package dev.loam.core.arrow;
