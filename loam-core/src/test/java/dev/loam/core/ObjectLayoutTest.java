package dev.loam.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.store.ObjectKeys;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The key scheme as built here, and as docs/formats/bucket-layout.md writes it down. */
class ObjectLayoutTest {
  private static final Ulid ULID = new Ulid(0x0123456789abcdefL, 0x0fedcba987654321L);

  @Test
  void keysFollowTheSchemeAndAreRecognisedByKind() {
    String standard = ObjectLayout.walKey(DurabilityClass.STANDARD, "n1", ULID);
    String express = ObjectLayout.walKey(DurabilityClass.EXPRESS, "n-2", ULID);
    String seg = ObjectLayout.segmentKey(7, 3, 1000, ULID);
    String cseg = ObjectLayout.compactedSegmentKey(7, 3, 0, ULID);

    assertThat(standard).isEqualTo("wal/standard/n1/" + ULID + ".wal");
    assertThat(express).isEqualTo("wal/express/n-2/" + ULID + ".wal");
    assertThat(seg).isEqualTo("seg/7/3/1000-" + ULID + ".seg");
    assertThat(cseg).isEqualTo("seg/7/3/0-" + ULID + ".cseg");
    for (String k : new String[] {standard, express, seg, cseg}) {
      assertThat(ObjectKeys.isValid(k)).as(k).isTrue();
      assertThat(ObjectLayout.GC_PREFIXES.stream().filter(k::startsWith)).as(k).hasSize(1);
    }
    assertThat(ObjectLayout.isWal(standard) && ObjectLayout.isWal(express)).isTrue();
    assertThat(ObjectLayout.isExpressWal(express)).isTrue();
    assertThat(ObjectLayout.isExpressWal(standard)).isFalse();
    assertThat(ObjectLayout.isSegment(seg) && ObjectLayout.isSegment(cseg)).isTrue();
    assertThat(ObjectLayout.isWal(seg)).isFalse();
    assertThat(ObjectLayout.isCompactedSegment(cseg)).isTrue();
    assertThat(ObjectLayout.isCompactedSegment(seg)).isFalse();
  }

  @Test
  void theWrittenCopyListsEveryKeyShapeAndPrefix() throws Exception {
    String doc = Files.readString(Path.of("../docs/formats/bucket-layout.md"));
    assertThat(doc)
        .contains("wal/standard/<node_id>/<ulid>.wal")
        .contains("wal/express/<node_id>/<ulid>.wal")
        .contains("seg/<stream_id>/<partition>/<base_offset>-<ulid>.seg")
        .contains("seg/<stream_id>/<partition>/<base_offset>-<ulid>.cseg");
    for (String prefix : ObjectLayout.GC_PREFIXES) {
      assertThat(doc).contains("`" + prefix + "`");
    }
  }
}
