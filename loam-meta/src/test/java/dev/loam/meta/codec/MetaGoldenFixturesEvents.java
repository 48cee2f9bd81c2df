package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CompleteEvents;
import dev.loam.meta.command.CompletedEvent;
import dev.loam.meta.command.EventKey;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PruneEvents;
import dev.loam.meta.command.ReleaseEvents;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixtures of the CloudEvents dedupe ledger's golden files: command tags 31–34, outcome tags
 * 22–24 and snapshot version 9 (metastore-commands.md, metastore-snapshot.md).
 */
final class MetaGoldenFixturesEvents {
  static final String COMMANDS_V1_EVENTS = "metastore-commands-v1-events.bin";
  static final String OUTCOMES_V1_EVENTS = "outcomes-v1-events.bin";
  static final String SNAPSHOT_V9 = "metastore-snapshot-v9.bin";

  private MetaGoldenFixturesEvents() {}

  /** Key {@code n}: byte i is {@code n + i}, so keys differ and order by their first byte. */
  static EventKey key(int n) {
    byte[] b = new byte[EventKey.LENGTH];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (n + i);
    }
    return new EventKey(b);
  }

  /** Tag 31 with two keys, 32 with two events, 33 with one key, 34. */
  static List<Command> commandsEvents() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_988L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    return List.of(
        new ClaimEvents(a, 1L, 120_000L, List.of(key(1), key(0xf0))),
        new CompleteEvents(
            a,
            1L,
            77L,
            3_600_000L,
            List.of(
                new CompletedEvent(key(1), 2, 5L),
                new CompletedEvent(key(0xf0), 0, Long.MAX_VALUE))),
        new ReleaseEvents(b, 2L, 78L, List.of(key(3))),
        new PruneEvents(b, 10_000));
  }

  /** Tag 22 with each status, 23, 24. */
  static List<Outcome> outcomesEvents() {
    return List.of(
        new Outcome.EventsClaimed(
            77L,
            1_780_000_120_988L,
            List.of(
                Outcome.EventClaim.claimed(),
                Outcome.EventClaim.duplicate(2, 5L),
                Outcome.EventClaim.inFlight(1_780_000_100_000L))),
        new Outcome.EventsCompleted(2, 1),
        new Outcome.EventsRemoved(3));
  }

  /** The index (1-based) of the first claim in {@link #snapshotV9Commands()}. */
  static long firstClaimIndex() {
    return MetaGoldenFilesWriter.snapshotCommands().size() + 1;
  }

  /**
   * The v1 sequence (streams 1 default/orders with 3 partitions, 2 analytics/clicks with 2, 3
   * deleted), then: a claim of keys 1, 2, 3 on stream 1; keys 1 and 2 completed (partition 2 offset
   * 5, partition 0 offset 0) in a one-hour window; key 3 released; a claim of key 4 on stream 2
   * left pending; a prune that finds nothing expired.
   */
  static List<Command> snapshotV9Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    long claim = firstClaimIndex();
    out.add(new ClaimEvents(originA(10_000), 1L, 120_000L, List.of(key(1), key(2), key(3))));
    out.add(
        new CompleteEvents(
            originA(10_100),
            1L,
            claim,
            3_600_000L,
            List.of(new CompletedEvent(key(1), 2, 5L), new CompletedEvent(key(2), 0, 0L))));
    out.add(new ReleaseEvents(originA(10_200), 1L, claim, List.of(key(3))));
    out.add(new ClaimEvents(originB(10_300), 2L, 120_000L, List.of(key(4))));
    out.add(new PruneEvents(originB(10_400), 100));
    return out;
  }
}
