package dev.loam.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.api.Log;
import dev.loam.api.StreamSpec;
import dev.loam.sim.HostContext;
import dev.loam.sim.HostWorkload;
import dev.loam.sim.Simulation;
import dev.loam.sim.runner.SimSeeds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * CloudEvents deduplication in the simulation, under node crashes and pauses and store and
 * metastore faults (docs/reference/cloudevents.md "Deduplication"): clients send a small set of
 * events over and over, as retries would, to any running node. Nothing acknowledged is lost, every
 * duplicate answer names a stored copy of the same event, and an event is stored more than once
 * only in the case the ledger allows (the first append's claim was never completed and lapsed, so
 * the second append is at least the pending time later); the checker counts those.
 */
class CloudEventsDedupSimTest {
  /** The host's part: retries of a fixed set of events through the ingest service. */
  static final class Retrier implements HostWorkload {
    static final int EVENTS = 30;

    /** event id -> the (partition, offset) every answer named. */
    private final Map<String, List<long[]>> answers = new HashMap<>();

    private int appended;
    private int duplicates;
    private int inFlight;
    private int failed;
    int allowedDuplicates = -1;

    @Override
    public void setup(HostContext host) {
      Log log = host.anyLog().orElseThrow();
      host.await(log.createNamespaceIfAbsent("ce"));
      host.await(log.createStreamIfAbsent("ce", "events", StreamSpec.standard(2)));
    }

    @Override
    public void start(HostContext host) {
      host.scheduler().schedule(() -> send(host), 10, TimeUnit.MILLISECONDS);
    }

    private static CloudEvent event(int n) {
      return JsonFormat.parseEvent(
          ("{\"specversion\":\"1.0\",\"id\":\"e-"
                  + n
                  + "\",\"source\":\"/sim\",\"type\":\"sim.event\",\"data\":{\"n\":"
                  + n
                  + "}}")
              .getBytes(StandardCharsets.UTF_8));
    }

    private void send(HostContext host) {
      if (!host.workloadRunning()) {
        return;
      }
      // a request of one to three events, possibly repeating one (coalesced)
      int size = 1 + host.random().nextInt(3);
      List<CloudEvent> events = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        events.add(event(host.random().nextInt(EVENTS)));
      }
      host.anyLog()
          .ifPresent(
              log ->
                  new CloudEventIngest(log)
                      .ingest(
                          "ce",
                          "events",
                          events,
                          OptionalInt.empty(),
                          () -> {},
                          CloudEventIngest.DEFAULT_WINDOW)
                      .whenComplete(
                          (res, failure) -> {
                            if (failure != null) {
                              failed++;
                              return;
                            }
                            for (int i = 0; i < events.size(); i++) {
                              IngestResult.EventAnswer a = res.answers().get(i);
                              String id = events.get(i).text(CloudEvent.ID);
                              switch (a.status()) {
                                case APPENDED -> appended++;
                                case DUPLICATE -> duplicates++;
                                case IN_FLIGHT -> inFlight++;
                              }
                              if (a.status() != IngestResult.Status.IN_FLIGHT) {
                                answers
                                    .computeIfAbsent(id, k -> new ArrayList<>())
                                    .add(new long[] {a.partition(), a.offset()});
                              }
                            }
                          }));
      host.scheduler()
          .schedule(() -> send(host), 5 + host.random().nextInt(30), TimeUnit.MILLISECONDS);
    }

    @Override
    public void validate(HostContext host) {
      Log log = host.anyLog().orElseThrow();
      // (partition, offset) -> event id, and each id's records
      Map<String, String> at = new HashMap<>();
      Map<String, List<FetchedRecord>> byId = new HashMap<>();
      for (int p = 0; p < 2; p++) {
        long offset = 0;
        while (true) {
          FetchResult page =
              host.await(log.fetch("ce", "events", p, offset, 1 << 20, Duration.ZERO));
          if (page.records().isEmpty()) {
            break;
          }
          for (FetchedRecord r : page.records()) {
            String id = null;
            for (Header h : r.headers()) {
              if (h.key().equals("ce_id")) {
                id = new String(h.value(), StandardCharsets.UTF_8);
              }
            }
            at.put(p + "/" + r.offset(), id);
            byId.computeIfAbsent(id, k -> new ArrayList<>()).add(r);
          }
          offset = page.nextOffset();
        }
      }
      answers.forEach(
          (id, named) -> {
            for (long[] pos : named) {
              String stored = at.get(pos[0] + "/" + pos[1]);
              if (!id.equals(stored)) {
                host.violation(
                    "an answer for id="
                        + id
                        + " names partition="
                        + pos[0]
                        + " offset="
                        + pos[1]
                        + " which holds id="
                        + stored);
              }
            }
          });
      int allowed = 0;
      long pending = CloudEventIngest.PENDING.toMillis();
      for (Map.Entry<String, List<FetchedRecord>> e : byId.entrySet()) {
        List<FetchedRecord> rs = e.getValue();
        rs.sort((a, b) -> Long.compare(a.timestamp(), b.timestamp()));
        for (int i = 1; i < rs.size(); i++) {
          if (rs.get(i).timestamp() - rs.get(i - 1).timestamp() >= pending) {
            allowed++; // the first claim lapsed uncompleted: the one duplicate the ledger allows
          } else {
            host.violation(
                "id="
                    + e.getKey()
                    + " stored twice within the pending time: offsets "
                    + rs.get(i - 1).offset()
                    + " and "
                    + rs.get(i).offset());
          }
        }
      }
      allowedDuplicates = allowed;
      host.trace(
          "cloudevents appended="
              + appended
              + " duplicate="
              + duplicates
              + " in_flight="
              + inFlight
              + " failed="
              + failed
              + " stored="
              + at.size()
              + " allowedDuplicates="
              + allowed);
    }

    int appended() {
      return appended;
    }

    int duplicates() {
      return duplicates;
    }
  }

  @Test
  void retriesNeverAppendTwiceUnderCrashesAndMetastoreFaults() {
    Simulation.Config shape = new Simulation.Config(3, Duration.ofSeconds(10), 3, true);
    SimSeeds.check(3, seed -> new Simulation(seed, shape, new Retrier()));
  }

  @Test
  void theEventsAreReallySentAndJudged() {
    Retrier r = new Retrier();
    Simulation.Result result =
        new Simulation(5, new Simulation.Config(3, Duration.ofSeconds(5), 3, true), r).run();
    assertThat(result.violations()).as(result.report()).isEmpty();
    assertThat(r.appended()).isGreaterThan(0);
    assertThat(r.duplicates()).as("retries answered duplicate").isGreaterThan(r.appended());
    assertThat(r.allowedDuplicates).isZero();
    System.out.println(
        "seed=5 appended=" + r.appended() + " duplicate=" + r.duplicates() + " " + result.counts());
  }
}
