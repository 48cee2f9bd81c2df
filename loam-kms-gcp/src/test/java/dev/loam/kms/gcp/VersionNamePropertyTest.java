package dev.loam.kms.gcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.LoamException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The version-name parser of the Cloud KMS implementation: a numbered version name gives its
 * number, and any other string fails with a typed error naming it, never another exception.
 */
class VersionNamePropertyTest {
  static final String KEY = LocalCloudKms.KEY_RING + "/cryptoKeys/k";

  @Property(tries = 300)
  void numberedNamesGiveTheirNumber(@ForAll @IntRange(min = 1) int n) {
    assertThat(CloudKmsCalls.versionOf(KEY + "/cryptoKeyVersions/" + n)).isEqualTo(n);
  }

  @Property(tries = 1000)
  void anyNameParsesOrFailsNamingIt(@ForAll String name) {
    Throwable t = catchThrowable(() -> CloudKmsCalls.versionOf(name));
    if (t == null) {
      assertThat(CloudKmsCalls.versionOf(name)).isPositive();
    } else {
      assertThat(t).isInstanceOf(LoamException.class).hasMessageContaining("version=" + name);
    }
  }
}
