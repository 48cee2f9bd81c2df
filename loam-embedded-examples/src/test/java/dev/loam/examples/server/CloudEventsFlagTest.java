package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.cli.UsageException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code --cloudevents-dedup-window SECONDS}: 1 h by default, at most 24 h
 * (docs/reference/cloudevents.md "Deduplication").
 */
class CloudEventsFlagTest {
  @Test
  void theDedupWindowDefaultsToAnHourAndStopsAtADay() {
    assertThat(LoamServerMain.parse(new String[0]).dedupWindow()).isEqualTo(Duration.ofHours(1));
    assertThat(
            LoamServerMain.parse(new String[] {"--cloudevents-dedup-window", "86400"})
                .dedupWindow())
        .isEqualTo(Duration.ofDays(1));
    for (String bad : new String[] {"0", "86401", "-5", "1h"}) {
      assertThatThrownBy(
              () -> LoamServerMain.validate(new String[] {"--cloudevents-dedup-window", bad}))
          .as(bad)
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("--cloudevents-dedup-window");
    }
  }
}
