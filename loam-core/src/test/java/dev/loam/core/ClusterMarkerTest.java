package dev.loam.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/** The cluster marker's format (docs/formats/cluster-marker.md): round trip, golden, refusals. */
class ClusterMarkerTest {
  @Property
  void decodeOfEncodeIsTheId(
      @ForAll @AlphaChars @NumericChars @StringLength(min = 1, max = 64) String id) {
    assertThat(ClusterMarker.decode(ClusterMarker.encode(id))).isEqualTo(id);
  }

  @Property
  void everySingleByteChangeIsRefusedOrNamesAnotherId(
      @ForAll @StringLength(min = 1, max = 64) @AlphaChars String id,
      @ForAll byte replacement,
      @ForAll int where) {
    byte[] bytes = ClusterMarker.encode(id);
    int i = Math.floorMod(where, bytes.length);
    if (bytes[i] == replacement) {
      return;
    }
    bytes[i] = replacement;
    try {
      // A changed id character can still be a valid id; anything else must be refused.
      assertThat(ClusterMarker.decode(bytes)).isNotEqualTo(id);
    } catch (LoamException e) {
      assertThat(e.kind()).isEqualTo(Kind.CORRUPTION);
      assertThat(e.getMessage()).contains("key=" + ClusterMarker.KEY);
    }
  }

  @Property
  void everyTruncationIsRefused(@ForAll @AlphaChars @StringLength(min = 1, max = 64) String id) {
    byte[] bytes = ClusterMarker.encode(id);
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(bytes, n);
      assertThatThrownBy(() -> ClusterMarker.decode(cut))
          .isInstanceOf(LoamException.class)
          .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.CORRUPTION));
    }
  }

  @Test
  void theGoldenFileDecodesForever() throws Exception {
    byte[] golden = Files.readAllBytes(Path.of("src/test/resources/golden/cluster-marker-v1.bin"));
    assertThat(ClusterMarker.decode(golden)).isEqualTo("01JDX5ZQ3M7RQ0J4C8N6V2W9KT");
    assertThat(ClusterMarker.encode("01JDX5ZQ3M7RQ0J4C8N6V2W9KT")).isEqualTo(golden);
  }

  @Test
  void aNewerVersionOrAnotherObjectIsRefusedNamingWhy() {
    assertThatThrownBy(
            () ->
                ClusterMarker.decode(
                    "loam-cluster 2\ncluster_id=A\n".getBytes(StandardCharsets.US_ASCII)))
        .hasMessageContaining("unsupported version");
    assertThatThrownBy(() -> ClusterMarker.decode("{\"a\":1}".getBytes(StandardCharsets.US_ASCII)))
        .hasMessageContaining("not a cluster marker");
    assertThatThrownBy(() -> ClusterMarker.encode("has.dot"))
        .isInstanceOf(LoamException.class)
        .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.INVALID));
  }
}
