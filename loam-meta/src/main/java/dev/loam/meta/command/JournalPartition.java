package dev.loam.meta.command;

/** A partition of a quorum stream, as assigned to a journal (AssignJournalPartition). */
public record JournalPartition(long streamId, int partition) {}
