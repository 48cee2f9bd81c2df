package dev.loam.api;

import java.util.List;
import java.util.Objects;

/**
 * One part of a fenced append: the records computed from source positions {@code [sourceFrom,
 * sourceTo]} (docs/design/changelog.md). Its records are stored as one batch, so the sequencer
 * takes or skips them together; their partition and key fields are ignored (a fenced append names
 * its partition).
 *
 * @param sourceFrom the first source position covered, {@code >= 0}
 * @param sourceTo the last one, {@code >= sourceFrom}
 * @param records 1 or more records
 */
public record SourceGroup(long sourceFrom, long sourceTo, List<AppendRecord> records) {
  public SourceGroup {
    Objects.requireNonNull(records, "records");
    records = List.copyOf(records);
  }
}
