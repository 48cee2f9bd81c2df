package com.example.dirstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.store.tck.FaultInjectingObjectStore;
import dev.loam.store.tck.FaultInjectingObjectStore.Fault;
import dev.loam.store.tck.FaultInjectingObjectStore.Operation;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/** The plugin's retry recipe under the kit's fault-injecting store. */
class CreateOnceTest {
  private final FaultInjectingObjectStore store =
      new FaultInjectingObjectStore(new InMemoryObjectStore(InstantSource.system()));

  @Test
  void aLostAnswerIsRetriedAndRecognisedAsOurs() {
    store.failNext(Fault.FAIL_AFTER, 1, Operation.CREATE);
    assertThat(CreateOnce.create(store, "k", "mine".getBytes(UTF_8), 3)).isTrue();
    assertThat(store.requestsReached(Operation.CREATE)).isEqualTo(2);
    assertThat(store.get("k").join()).isEqualTo("mine".getBytes(UTF_8));
  }

  @Test
  void throttlingIsRetriedUntilTheAttemptsRunOut() {
    store.failNext(Fault.THROTTLE, 2, Operation.CREATE);
    assertThat(CreateOnce.create(store, "t", "x".getBytes(UTF_8), 3)).isTrue();
    store.failNext(Fault.THROTTLE, 5, Operation.CREATE);
    assertThatThrownBy(() -> CreateOnce.create(store, "u", "x".getBytes(UTF_8), 3))
        .hasCauseInstanceOf(StoreUnavailableException.class);
    assertThat(store.head("u").join()).isEmpty();
  }

  @Test
  void anotherWritersObjectIsNotTakenForOurs() {
    store.create("o", "theirs".getBytes(UTF_8)).join();
    assertThat(CreateOnce.create(store, "o", "mine".getBytes(UTF_8), 3)).isFalse();
  }
}
