package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/configuration-stores.md holds {@link S3StoreSettings.URI_PARAMETERS} as generated;
 * with {@code -Dloam.docs.regenerate=true} this test rewrites that section instead of checking it.
 */
class S3ConfigurationReferenceTest {
  private static final Path PAGE = Path.of("..", "docs", "reference", "configuration-stores.md");

  @Test
  void theReferencePageListsEveryParameterAsTheTableDefinesIt() throws IOException {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    String generated = S3StoreSettings.URI_PARAMETERS.spliceInto(page, "s3");
    if (Boolean.getBoolean("loam.docs.regenerate")) {
      Files.writeString(PAGE, generated, StandardCharsets.UTF_8);
      return;
    }
    assertThat(page)
        .as(
            "%s is out of date with %s; regenerate it with: mvn -B -pl loam-storage-s3 test"
                + " -Dtest=S3ConfigurationReferenceTest -Dloam.docs.regenerate=true",
            "docs/reference/configuration-stores.md", "S3StoreSettings.URI_PARAMETERS")
        .isEqualTo(generated);
  }
}
