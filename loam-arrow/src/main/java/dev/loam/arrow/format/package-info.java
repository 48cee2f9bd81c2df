/**
 * The byte formats of the arrow encoding (docs/formats/arrow-batch-v1.md): the arrow batch frame
 * that wraps one Arrow IPC record batch message with its schema version, record count, timestamps
 * and per-column byte ranges and CRCs, and the column index an arrow segment adds to its index
 * region. Pure and I/O-free; they never interpret the Arrow bytes themselves.
 */
package dev.loam.arrow.format;
