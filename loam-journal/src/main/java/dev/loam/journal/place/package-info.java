/**
 * Acting on the metastore's quorum-journal placement on one node (docs/design/quorum.md
 * "Placement").
 */
package dev.loam.journal.place;
