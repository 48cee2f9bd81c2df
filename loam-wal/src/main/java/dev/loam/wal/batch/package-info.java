/**
 * Kafka RecordBatch v2 (magic 2), byte compatible with kafka-clients: encoder, flyweight reader and
 * in-place offset patching (docs/formats/record-batch-v2.md). Pure, I/O-free.
 */
package dev.loam.wal.batch;
