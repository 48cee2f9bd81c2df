/** Driver pieces that own real threads and clocks, kept apart from the deterministic core. */
package dev.loam.core.runtime;
