/**
 * The journal entry format (docs/formats/journal-entry-v1.md) and the result of applying one: pure
 * functions over bytes, no I/O.
 */
package dev.loam.journal.entry;
