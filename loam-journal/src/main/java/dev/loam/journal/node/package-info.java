/**
 * The journal host of a node: what {@code LoamNode} starts, through the {@code dev.loam.spi.quorum}
 * seam, when it is given a journal port.
 */
package dev.loam.journal.node;
