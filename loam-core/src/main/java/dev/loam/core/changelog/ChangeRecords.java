package dev.loam.core.changelog;

import dev.loam.api.AppendRecord;
import dev.loam.api.ChangelogMode;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The change records of one source record (docs/design/changelog.md "The change records"): a pure
 * function of the record, whether its key had a live row before it, that row's value (the
 * before-image) and the mode.
 */
public final class ChangeRecords {
  /**
   * The header naming a change record's row kind: {@code +I}, {@code -U}, {@code +U} or {@code -D}.
   */
  public static final String ROW_KIND = "loam.row_kind";

  /** The header holding the source record's offset, ASCII decimal. */
  public static final String SOURCE_OFFSET = "loam.source_offset";

  public static final String INSERT = "+I";
  public static final String UPDATE_BEFORE = "-U";
  public static final String UPDATE_AFTER = "+U";
  public static final String DELETE = "-D";

  private ChangeRecords() {}

  /**
   * The change records of {@code src}, in order; empty for a record without a key and for a
   * tombstone of a key without a live row.
   *
   * @param hadRow whether the key had a live row before {@code src}
   * @param before the live row's value when {@code hadRow} (read from the source by its offset);
   *     ignored otherwise, and in upsert mode
   */
  public static List<AppendRecord> of(
      FetchedRecord src, boolean hadRow, byte[] before, ChangelogMode mode) {
    if (src.key() == null) {
      return List.of();
    }
    boolean tombstone = src.value() == null;
    if (tombstone && !hadRow) {
      return List.of();
    }
    if (mode == ChangelogMode.UPSERT) {
      return List.of(
          tombstone ? change(src, DELETE, null) : change(src, UPDATE_AFTER, src.value()));
    }
    if (tombstone) {
      return List.of(change(src, DELETE, before));
    }
    if (!hadRow) {
      return List.of(change(src, INSERT, src.value()));
    }
    return List.of(change(src, UPDATE_BEFORE, before), change(src, UPDATE_AFTER, src.value()));
  }

  /** Whether {@code src} needs a before-image in {@code mode} given {@code hadRow}. */
  public static boolean needsBefore(FetchedRecord src, boolean hadRow, ChangelogMode mode) {
    return mode == ChangelogMode.FULL && hadRow && src.key() != null;
  }

  private static AppendRecord change(FetchedRecord src, String kind, byte[] value) {
    return new AppendRecord(
        src.key(),
        value,
        List.of(
            new Header(ROW_KIND, kind.getBytes(StandardCharsets.US_ASCII)),
            new Header(
                SOURCE_OFFSET, Long.toString(src.offset()).getBytes(StandardCharsets.US_ASCII))),
        OptionalLong.of(src.timestamp()),
        OptionalInt.empty());
  }
}
