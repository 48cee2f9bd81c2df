/**
 * A node's journal Ratis server (docs/design/quorum.md "Journals"): one Apache Ratis server per
 * node hosting many journal groups (multi-Raft), each running a {@link
 * dev.loam.journal.state.JournalState}. Ratis types never leave this package's implementation.
 */
package dev.loam.journal.ratis;
