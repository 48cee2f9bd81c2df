package dev.loam.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.store.ObjectKeys;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The key scheme as built here, and as docs/formats/bucket-layout.md writes it down. */
class ObjectLayoutTest {
  private static final Ulid ULID = new Ulid(0x0123456789abcdefL, 0x0fedcba987654321L);
  private static final String CLUSTER = "01JDX5ZQ3M7RQ0J4C8N6V2W9KT";

  @Test
  void keysFollowTheSchemeAndAreRecognisedByKind() {
    String standard = ObjectLayout.walKey(DurabilityClass.STANDARD, CLUSTER, "n1", ULID);
    String express = ObjectLayout.walKey(DurabilityClass.EXPRESS, CLUSTER, "n-2", ULID);
    String seg = ObjectLayout.segmentKey(CLUSTER, 7, 3, 1000, ULID);
    String cseg = ObjectLayout.compactedSegmentKey(CLUSTER, 7, 3, 0, ULID);

    assertThat(standard).isEqualTo("wal/standard/" + CLUSTER + "/n1/" + ULID + ".wal");
    assertThat(express).isEqualTo("wal/express/" + CLUSTER + "/n-2/" + ULID + ".wal");
    assertThat(seg).isEqualTo("seg/" + CLUSTER + "/7/3/1000-" + ULID + ".seg");
    assertThat(cseg).isEqualTo("seg/" + CLUSTER + "/7/3/0-" + ULID + ".cseg");
    List<String> prefixes = ObjectLayout.gcPrefixes(CLUSTER);
    for (String k : new String[] {standard, express, seg, cseg}) {
      assertThat(ObjectKeys.isValid(k)).as(k).isTrue();
      assertThat(prefixes.stream().filter(k::startsWith)).as(k).hasSize(1);
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
  void anotherClustersKeysAndKeysWithoutAClusterAreOutsideTheGcPrefixes() {
    List<String> mine = ObjectLayout.gcPrefixes(CLUSTER);
    List<String> foreign =
        List.of(
            ObjectLayout.walKey(DurabilityClass.STANDARD, "OTHER", "n1", ULID),
            ObjectLayout.walKey(DurabilityClass.EXPRESS, "OTHER", "n1", ULID),
            ObjectLayout.segmentKey("OTHER", 7, 3, 0, ULID),
            // A cluster id that starts like this one's: the trailing slash keeps them apart.
            ObjectLayout.walKey(DurabilityClass.STANDARD, CLUSTER + "X", "n1", ULID),
            // Keys from before the cluster id was part of them.
            "wal/standard/n1/" + ULID + ".wal",
            "seg/7/3/0-" + ULID + ".seg",
            ClusterMarker.KEY);
    for (String k : foreign) {
      assertThat(mine.stream().filter(k::startsWith)).as(k).isEmpty();
    }
  }

  @Test
  void theWrittenCopyListsEveryKeyShapeAndPrefix() throws Exception {
    String doc = Files.readString(Path.of("../docs/formats/bucket-layout.md"));
    assertThat(doc)
        .contains("wal/standard/<cluster_id>/<node_id>/<ulid>.wal")
        .contains("wal/express/<cluster_id>/<node_id>/<ulid>.wal")
        .contains("seg/<cluster_id>/<stream_id>/<partition>/<base_offset>-<ulid>.seg")
        .contains("seg/<cluster_id>/<stream_id>/<partition>/<base_offset>-<ulid>.cseg")
        .contains("`" + ClusterMarker.KEY + "`");
    for (String prefix : ObjectLayout.gcPrefixes("<cluster_id>")) {
      assertThat(doc).contains("`" + prefix + "`");
    }
  }
}
