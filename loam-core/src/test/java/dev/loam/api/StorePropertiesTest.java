package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.RecordingStoreProvider;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LoamNode.Builder.storeProperties reaches the provider that opens the store URI. */
class StorePropertiesTest {
  @TempDir Path dir;

  @Test
  void theProviderReceivesTheStorePropertiesAndTheNodeWorksOnItsStore() throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put("recording.access-key-id", "AKIDEXAMPLE");
    props.put("recording.secret-access-key", "s3cr3t-value");
    try (LoamNode node =
        LoamNode.builder()
            .nodeId("n1")
            .dataDir(dir)
            .storeUri("recording://props-node")
            .storeProperties(props)
            .start()) {
      props.put("recording.secret-access-key", "changed after the call");
      StoreContext ctx = RecordingStoreProvider.openedWith("props-node");
      assertThat(ctx).as("the provider was asked to open the store").isNotNull();
      assertThat(ctx.properties())
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "recording.access-key-id", "AKIDEXAMPLE",
                  "recording.secret-access-key", "s3cr3t-value"));
      assertThat(ctx.toString())
          .contains("recording.secret-access-key=****")
          .doesNotContain("s3cr3t-value")
          .doesNotContain("AKIDEXAMPLE");
      node.log().createNamespace("ns").get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void withoutPropertiesTheProviderGetsAnEmptyMap() {
    try (LoamNode node =
        LoamNode.builder().nodeId("n2").dataDir(dir).storeUri("recording://no-props").start()) {
      assertThat(RecordingStoreProvider.openedWith("no-props").properties()).isEmpty();
    }
  }

  @Test
  void aPropertyWithoutANameOrValueIsInvalidAndNamed() {
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("s3.secret-access-key", null);
    assertThatThrownBy(() -> LoamNode.builder().storeProperties(nullValue))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("property=s3.secret-access-key")
        .extracting(e -> ((LoamException) e).kind())
        .isEqualTo(LoamException.Kind.INVALID);
    assertThatThrownBy(() -> LoamNode.builder().storeProperties(Map.of(" ", "x")))
        .isInstanceOf(LoamException.class);
  }

  @Test
  void storeContextToStringMasksEveryValue() {
    StoreContext ctx =
        new StoreContext(InstantSource.system(), Runnable::run, Map.of("a", "one", "b", "two"));
    assertThat(ctx.toString()).contains("properties={a=****, b=****}").doesNotContain("one");
  }
}
