/**
 * Background sealing of a journal's committed ranges into segment objects (docs/design/quorum.md
 * "Sealing").
 */
package dev.loam.journal.seal;
