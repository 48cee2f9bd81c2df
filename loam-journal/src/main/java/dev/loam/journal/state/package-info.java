/**
 * The journal state machine (docs/design/quorum.md "The journal state machine"): pure and
 * deterministic, entries in, results out, with its snapshot format
 * (docs/formats/journal-snapshot-v1.md).
 */
package dev.loam.journal.state;
