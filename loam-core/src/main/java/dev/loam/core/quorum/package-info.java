/**
 * The data path of quorum streams on a node ({@link dev.loam.core.quorum.QuorumStreams}): placing
 * partitions on journals, appends and fetches through the node's journal host, which the {@code
 * dev.loam.spi.quorum} seam provides.
 */
package dev.loam.core.quorum;
