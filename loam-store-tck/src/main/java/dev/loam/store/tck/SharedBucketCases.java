package dev.loam.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The cases with two handles on one bucket. Every node of a cluster opens its own store on the
 * shared bucket, so a store's guarantees must hold across handles, not only inside one: a write
 * through one handle is visible through the other, a create through one fences a create through the
 * other, a delete through one is seen by the other, and closing one leaves the other working.
 * Extend {@link ObjectStoreContractTest}, which inherits these cases.
 */
public abstract class SharedBucketCases extends ContractSupport {

  @Test
  protected void aWriteThroughOneHandleIsSeenThroughAnother() {
    ObjectStore other = anotherHandle();
    byte[] data = pattern(1000);
    await(store.create("shared/w", data));
    assertThat(await(other.get("shared/w"))).isEqualTo(data);
    assertThat(await(other.get("shared/w", 10, 20)))
        .isEqualTo(await(store.get("shared/w", 10, 20)));
    assertThat(await(other.getTail("shared/w", 8)).objectSize()).isEqualTo(1000);
    assertThat(await(other.head("shared/w"))).isEqualTo(await(store.head("shared/w")));
    assertThat(keys(listAll(other, "shared/", 1000))).containsExactly("shared/w");
    await(other.put("shared/w", bytes("replaced by the other handle")));
    assertThat(await(store.get("shared/w"))).isEqualTo(bytes("replaced by the other handle"));
    assertThat(await(store.head("shared/w")).orElseThrow().size())
        .isEqualTo(bytes("replaced by the other handle").length);
  }

  @Test
  protected void aCreateThroughOneHandleFencesACreateThroughAnother() {
    ObjectStore other = anotherHandle();
    await(store.create("shared/c1", bytes("first, through the store")));
    ObjectExistsException e =
        assertFailsWith(
            ObjectExistsException.class, () -> other.create("shared/c1", bytes("second")));
    assertThat(e.getMessage()).contains("key=shared/c1");
    assertThat(await(other.get("shared/c1"))).isEqualTo(bytes("first, through the store"));
    await(other.create("shared/c2", bytes("first, through the other")));
    assertFailsWith(ObjectExistsException.class, () -> store.create("shared/c2", bytes("second")));
    assertThat(await(store.get("shared/c2"))).isEqualTo(bytes("first, through the other"));
    await(other.put("shared/p", bytes("put")));
    assertFailsWith(ObjectExistsException.class, () -> store.create("shared/p", bytes("create")));
  }

  @Test
  protected void aDeleteThroughOneHandleIsSeenThroughAnother() {
    ObjectStore other = anotherHandle();
    await(store.create("shared/d/1", bytes("1")));
    await(store.create("shared/d/2", bytes("2")));
    assertThat(await(other.delete(List.of("shared/d/1")))).isEmpty();
    assertFailsWith(ObjectNotFoundException.class, () -> store.get("shared/d/1"));
    assertThat(await(store.head("shared/d/1"))).isEmpty();
    assertThat(keys(listAll("shared/", 1000))).containsExactly("shared/d/2");
    await(store.create("shared/d/1", bytes("again")));
    assertThat(await(other.get("shared/d/1"))).isEqualTo(bytes("again"));
    assertThat(await(store.delete(List.of("shared/d/1", "shared/d/2")))).isEmpty();
    assertThat(listAll(other, "shared/", 1000)).isEmpty();
  }

  @Test
  protected void concurrentCreatesThroughTwoHandlesHaveExactlyOneWinner() throws Exception {
    ObjectStore other = anotherHandle();
    for (int round = 0; round < 20; round++) {
      String key = "shared/race/" + round;
      List<Optional<Throwable>> outcomes =
          raceCreates(key, racingWriters(), w -> w % 2 == 0 ? store : other);
      for (Optional<Throwable> o : outcomes) {
        o.ifPresent(failure -> assertThat(failure).isInstanceOf(ObjectExistsException.class));
      }
      List<Integer> winners = winners(outcomes);
      assertThat(winners).as("winners of %s", key).hasSize(1);
      byte[] won = racerBytes(key, winners.get(0));
      assertThat(await(store.get(key))).isEqualTo(won);
      assertThat(await(other.get(key))).isEqualTo(won);
    }
  }

  @Test
  protected void closingOneHandleLeavesTheOtherWorking() {
    ObjectStore other = anotherHandle();
    await(other.create("shared/before", bytes("before")));
    other.close();
    await(store.create("shared/after", bytes("after")));
    assertThat(await(store.get("shared/before"))).isEqualTo(bytes("before"));
    assertThat(keys(listAll("shared/", 1000))).containsExactly("shared/after", "shared/before");
    ObjectStore third = anotherHandle();
    assertThat(await(third.get("shared/after"))).isEqualTo(bytes("after"));
  }
}
