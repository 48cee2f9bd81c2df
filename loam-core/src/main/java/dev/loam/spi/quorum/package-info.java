/**
 * The seam between the node runtime and the quorum durability class (docs/design/quorum.md "Hosting
 * journals on a node"): {@link dev.loam.spi.quorum.QuorumHostFactory}, implemented by the optional
 * {@code loam-journal} module and found with {@link java.util.ServiceLoader}, so that a host
 * without quorum streams does not carry the journal's Ratis server.
 */
package dev.loam.spi.quorum;
