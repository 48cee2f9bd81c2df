package dev.loam.wal.batch;

/** Kafka's batch timestamp type, attribute bit 3: who chose the record timestamps. */
public enum TimestampType {
  /** The producer set each record's timestamp. */
  CREATE_TIME,
  /** The log stamped the batch on append; every record's timestamp is the batch maxTimestamp. */
  LOG_APPEND_TIME
}
