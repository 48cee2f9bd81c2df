/**
 * The arrow encoding of Loam streams (docs/reference/arrow.md): {@link dev.loam.arrow.StreamSchema}
 * and {@link dev.loam.arrow.SchemaHistory} (a stream's Arrow schema versions and the evolution
 * rule), {@link dev.loam.arrow.ArrowBatches} (records to arrow batch frames and back, whole or
 * projected). The byte formats are in {@link dev.loam.arrow.format}.
 */
package dev.loam.arrow;
