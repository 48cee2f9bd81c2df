package dev.loam.meta.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.testing.ManualClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Crash consistency of the embedded metastore (docs/design/metastore.md "Crash consistency"): for
 * many seeds, a workload of group-committed proposals runs on a {@link CrashingDisk} that loses
 * power at a random operation — mid-write, mid-fsync, mid-snapshot, mid-roll, mid-clean-up — and
 * recovery (itself sometimes interrupted by a second power loss) must keep every acknowledged
 * command, apply no torn one, and keep the log a prefix of what was proposed, in order.
 */
class EmbeddedMetastoreCrashTest {
  private static final Path DIR = Path.of("/simulated/meta");

  /** Seeds per test; {@code -Dloam.crash.seeds=100000} for a longer campaign. */
  private static final int SEEDS = Integer.getInteger("loam.crash.seeds", 400);

  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private final ManualClock clock = new ManualClock(1_780_000_000_000L);

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
  }

  @Test
  void everyAcknowledgedCommandSurvivesAnyPowerLoss() throws Exception {
    Map<String, Integer> crashesByOperation = new TreeMap<>();
    for (int seed = 0; seed < SEEDS; seed++) {
      Result o = run(seed, CrashingDisk.Flaw.NONE);
      assertThat(o.violation()).as("seed %d", seed).isNull();
      if (o.crashedIn() != null) {
        crashesByOperation.merge(o.crashedIn(), 1, Integer::sum);
      }
    }
    // The schedule must interrupt every kind of operation, or the test checks less than it says.
    assertThat(crashesByOperation.keySet())
        .as("power losses by operation: %s", crashesByOperation)
        .contains(
            "create",
            "write",
            "force",
            "snapshot write",
            "snapshot force",
            "rename",
            "delete",
            "directory sync");
    assertThat(crashesByOperation.values().stream().mapToInt(Integer::intValue).sum())
        .isGreaterThan(SEEDS * 3 / 4);
    System.out.println("power losses by operation over " + SEEDS + " seeds: " + crashesByOperation);
  }

  @Test
  void theCheckerCatchesADiskWhoseFsyncLies() throws Exception {
    assertThat(violations(CrashingDisk.Flaw.FORCE_IS_NOOP))
        .anySatisfy(v -> assertThat(v).startsWith("acknowledged but lost"));
  }

  @Test
  void theCheckerCatchesADiskWhoseDirectorySyncLies() throws Exception {
    assertThat(violations(CrashingDisk.Flaw.DIRECTORY_SYNC_IS_NOOP))
        .anySatisfy(v -> assertThat(v).startsWith("acknowledged but lost"));
  }

  /** The violations the checker reports over {@link #SEEDS} seeds on a flawed disk. */
  private List<String> violations(CrashingDisk.Flaw flaw) throws Exception {
    List<String> out = new ArrayList<>();
    for (int seed = 0; seed < SEEDS; seed++) {
      String v = run(seed, flaw).violation();
      if (v != null) {
        out.add(v);
      }
    }
    return out;
  }

  private record Result(String crashedIn, String violation) {}

  /** One seed: workload until power loss, reboot, recovery (maybe interrupted), checks. */
  private Result run(int seed, CrashingDisk.Flaw flaw) throws Exception {
    Random random = new Random(seed);
    EmbeddedMetastore.Options options =
        new EmbeddedMetastore.Options(10_000, 2 + random.nextInt(12));
    CrashingDisk disk = CrashingDisk.empty(DIR, flaw, 1 + random.nextInt(250));

    List<String> proposed = new ArrayList<>();
    Set<String> acknowledged = new TreeSet<>();
    EmbeddedMetastore ms;
    boolean registered;
    try {
      ms = open(disk, options);
    } catch (LoamException e) {
      ms = null; // the power went out while the directory was being set up
    }
    try {
      registered = ms != null;
      if (registered) {
        ms.propose(new RegisterNode(origin(), "h:1", 2, "az")).get(10, TimeUnit.SECONDS);
      }
    } catch (java.util.concurrent.ExecutionException e) {
      registered = false; // the power went out at once
    }
    workload:
    for (int burst = 0; registered && burst < 60; burst++) {
      List<CompletableFuture<Applied>> inFlight = new ArrayList<>();
      List<String> names = new ArrayList<>();
      for (int k = 1 + random.nextInt(6); k > 0; k--) {
        String name = String.format("ns-%05d", proposed.size());
        proposed.add(name);
        names.add(name);
        inFlight.add(ms.propose(new CreateNamespace(origin(), name)));
      }
      for (int i = 0; i < inFlight.size(); i++) {
        try {
          Applied a = inFlight.get(i).get(10, TimeUnit.SECONDS);
          if (!(a.outcome() instanceof Outcome.NamespaceCreated)) {
            return new Result(disk.crashedIn(), "unexpected outcome " + a.outcome());
          }
          acknowledged.add(names.get(i));
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(LoamException.class);
          if (!disk.crashed()) {
            return new Result(null, "a proposal failed without a crash: " + e.getCause());
          }
        }
      }
      if (disk.crashed()) {
        break workload;
      }
    }
    if (ms != null) {
      ms.close();
    }

    // Reboot; a third of the time the recovery itself loses power once more.
    boolean interruptRecovery = random.nextInt(3) == 0;
    CrashingDisk rebooted =
        disk.afterPowerLoss(random, interruptRecovery ? random.nextInt(4) : Long.MAX_VALUE);
    if (interruptRecovery) {
      try {
        open(rebooted, options).close();
      } catch (LoamException e) {
        if (!rebooted.crashed()) {
          return new Result(disk.crashedIn(), "recovery failed without a crash: " + e);
        }
      }
      rebooted = rebooted.afterPowerLoss(random, Long.MAX_VALUE);
    }

    EmbeddedMetastore recovered;
    try {
      recovered = open(rebooted, options);
    } catch (LoamException e) {
      return new Result(disk.crashedIn(), "recovery refused a crashed directory: " + e);
    }
    try {
      List<String> present = namespaces(recovered);
      String v = check(proposed, acknowledged, present);
      if (v != null) {
        return new Result(disk.crashedIn(), v);
      }
      // The recovered log takes new commands, and they survive a clean restart.
      String after = "zz-after-recovery";
      recovered.propose(new RegisterNode(origin(), "h:1", 2, "az")).get(10, TimeUnit.SECONDS);
      Applied created =
          recovered.propose(new CreateNamespace(origin(), after)).get(10, TimeUnit.SECONDS);
      if (!(created.outcome() instanceof Outcome.NamespaceCreated)) {
        return new Result(disk.crashedIn(), "recovered log refused a command: " + created);
      }
      recovered.close();
      try {
        recovered = open(rebooted, options);
      } catch (LoamException e) {
        // No power loss since the recovery: a log that no longer opens lost what it had (on a
        // disk whose syncs lie, frames that outlived an earlier lost write).
        recovered = null;
        return new Result(disk.crashedIn(), "log unreadable after a clean restart: " + e);
      }
      List<String> again = recovered.read(MetaReader::namespaces);
      if (!again.contains(after) || !again.containsAll(present)) {
        return new Result(disk.crashedIn(), "lost a command after recovery: " + again);
      }
    } finally {
      if (recovered != null) {
        recovered.close();
      }
    }
    return new Result(disk.crashedIn(), null);
  }

  /** Null when {@code present} is a prefix of {@code proposed} holding every acknowledged name. */
  private static String check(
      List<String> proposed, Set<String> acknowledged, List<String> present) {
    for (String a : acknowledged) {
      if (!present.contains(a)) {
        return "acknowledged but lost: " + a + " present=" + present.size();
      }
    }
    if (!present.equals(proposed.subList(0, Math.min(present.size(), proposed.size())))
        || present.size() > proposed.size()) {
      return "recovered state is not a prefix of the proposals: " + present;
    }
    return null;
  }

  private EmbeddedMetastore open(CrashingDisk disk, EmbeddedMetastore.Options options) {
    return EmbeddedMetastore.open(DIR, MetaSettings.defaults(), options, clock, executor, disk);
  }

  private static List<String> namespaces(EmbeddedMetastore ms) {
    return ms.read(MetaReader::namespaces).stream()
        .filter(n -> n.startsWith("ns-"))
        .sorted()
        .toList();
  }

  private Origin origin() {
    return new Origin("n1", 1, clock.millis());
  }
}
