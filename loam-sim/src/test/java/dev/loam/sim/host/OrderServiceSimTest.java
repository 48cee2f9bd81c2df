// doc:begin
package dev.loam.sim.host;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import dev.loam.api.StreamSpec;
import dev.loam.sim.HostContext;
import dev.loam.sim.HostWorkload;
import dev.loam.sim.Simulation;
import dev.loam.sim.runner.SimSeeds;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** An order service's invariants under node crashes, pauses and store and metastore faults. */
class OrderServiceSimTest {

  /** The host's part: records each order once, through an idempotent producer. */
  static final class OrderService implements HostWorkload {
    private final Map<String, Long> acknowledged = new HashMap<>(); // order id -> offset
    private int next;

    @Override
    public void setup(HostContext host) {
      Log log = host.anyLog().orElseThrow();
      host.await(log.createNamespaceIfAbsent("shop"));
      host.await(log.createStreamIfAbsent("shop", "orders", StreamSpec.standard(1)));
    }

    @Override
    public void start(HostContext host) {
      host.scheduler().schedule(() -> placeOrder(host), 10, TimeUnit.MILLISECONDS);
    }

    private void placeOrder(HostContext host) {
      if (!host.workloadRunning()) {
        return;
      }
      String id = "order-" + next++;
      // Any node a client can reach now; a new producer per order, so a node that crashed does
      // not hold later orders back. Never join() here: compose.
      host.anyLog()
          .ifPresent(
              log ->
                  log.idempotentProducer()
                      .append("shop", "orders", 0, List.of(AppendRecord.of(id, "{}")))
                      .whenComplete(
                          (ack, failure) -> {
                            if (failure == null) {
                              acknowledged.put(id, ack.positions().get(0).offset());
                            }
                          }));
      host.scheduler()
          .schedule(() -> placeOrder(host), 5 + host.random().nextInt(45), TimeUnit.MILLISECONDS);
    }

    @Override
    public void validate(HostContext host) {
      Log log = host.anyLog().orElseThrow();
      Map<String, Long> stored = new HashMap<>();
      long offset = 0;
      while (true) {
        FetchResult page =
            host.await(log.fetch("shop", "orders", 0, offset, 1 << 20, Duration.ZERO));
        if (page.records().isEmpty()) {
          break;
        }
        for (FetchedRecord r : page.records()) {
          if (stored.put(r.keyAsString(), r.offset()) != null) {
            host.violation("order stored twice id=" + r.keyAsString() + " offset=" + r.offset());
          }
        }
        offset = page.nextOffset();
      }
      acknowledged.forEach(
          (id, at) -> {
            if (!at.equals(stored.get(id))) {
              host.violation("acknowledged order lost id=" + id + " offset=" + at);
            }
          });
      host.trace("orders acknowledged=" + acknowledged.size() + " stored=" + stored.size());
    }

    int acknowledgedOrders() {
      return acknowledged.size();
    }
  }

  @Test
  void everyAcknowledgedOrderIsStoredExactlyOnce() {
    Simulation.Config shape = new Simulation.Config(3, Duration.ofSeconds(10), 3, true);
    SimSeeds.check(3, seed -> new Simulation(seed, shape, new OrderService()));
  }

  // doc:end

  @Test
  void theOrdersAreReallyPlacedAndJudged() {
    OrderService orders = new OrderService();
    Simulation.Result r =
        new Simulation(5, new Simulation.Config(3, Duration.ofSeconds(5), 3, false), orders).run();
    org.assertj.core.api.Assertions.assertThat(r.violations()).as(r.report()).isEmpty();
    org.assertj.core.api.Assertions.assertThat(orders.acknowledgedOrders()).isGreaterThan(50);
  }
}
