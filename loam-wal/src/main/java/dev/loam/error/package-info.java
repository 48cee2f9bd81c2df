/**
 * The {@link dev.loam.error.LoamException} family shared by every Loam module: one unchecked root
 * with a coarse kind, and subclasses where a caller needs to catch one case.
 */
package dev.loam.error;
