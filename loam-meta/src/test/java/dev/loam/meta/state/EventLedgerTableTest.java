package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.CompleteEvents;
import dev.loam.meta.command.CompletedEvent;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.EventKey;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.EventClaim;
import dev.loam.meta.command.PruneEvents;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.ReleaseEvents;
import dev.loam.meta.command.StreamConfig;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CloudEvents dedupe ledger's rules: claim, duplicate, in flight, lapse, complete only under
 * the claim, release, prune in a fixed order, drop with the stream, and the v9 snapshot.
 */
class EventLedgerTableTest {
  private MetaStateMachine m;
  private long index;
  private long clock = 1_000_000;

  private static EventKey key(int n) {
    byte[] b = new byte[EventKey.LENGTH];
    b[0] = (byte) n;
    return new EventKey(b);
  }

  private Origin at(long millis) {
    clock = Math.max(clock, millis);
    return new Origin("n1", 1, millis);
  }

  private Outcome apply(dev.loam.meta.command.Command c) {
    return m.apply(++index, c);
  }

  @BeforeEach
  void setUp() {
    m = new MetaStateMachine(MetaSettings.defaults());
    apply(new RegisterNode(new Origin("n1", 1, clock), null, 1, null));
    apply(new CreateStream(at(clock), "default", "s", StreamConfig.standard(2)));
  }

  private Outcome.EventsClaimed claim(long now, EventKey... keys) {
    return (Outcome.EventsClaimed) apply(new ClaimEvents(at(now), 1L, 120_000, List.of(keys)));
  }

  @Test
  void aClaimThenCompleteMakesRetriesDuplicatesUntilTheWindowEnds() {
    Outcome.EventsClaimed c = claim(clock, key(1), key(2));
    assertThat(c.claimId()).isEqualTo(index);
    assertThat(c.claims()).containsExactly(EventClaim.claimed(), EventClaim.claimed());
    // another request in the meantime: in flight until the claim lapses
    assertThat(claim(clock + 10, key(2)).claims())
        .containsExactly(EventClaim.inFlight(c.expiresAtMillis()));
    Outcome done =
        apply(
            new CompleteEvents(
                at(clock + 20),
                1L,
                c.claimId(),
                3_600_000,
                List.of(new CompletedEvent(key(1), 1, 7), new CompletedEvent(key(2), 0, 3))));
    assertThat(done).isEqualTo(new Outcome.EventsCompleted(2, 0));
    long doneAt = clock;
    assertThat(claim(doneAt + 3_599_999, key(1), key(2)).claims())
        .containsExactly(EventClaim.duplicate(1, 7), EventClaim.duplicate(0, 3));
    // after the window, a new event
    assertThat(claim(doneAt + 3_600_000, key(1)).claims()).containsExactly(EventClaim.claimed());
  }

  @Test
  void aLapsedClaimCanBeTakenAndItsCompletionNoLongerCounts() {
    Outcome.EventsClaimed first = claim(clock, key(1));
    Outcome.EventsClaimed second = claim(first.expiresAtMillis(), key(1));
    assertThat(second.claims()).containsExactly(EventClaim.claimed());
    Outcome late =
        apply(
            new CompleteEvents(
                at(clock),
                1L,
                first.claimId(),
                3_600_000,
                List.of(new CompletedEvent(key(1), 0, 1))));
    assertThat(late).isEqualTo(new Outcome.EventsCompleted(0, 1));
    assertThat(claim(clock + 1, key(1)).claims())
        .containsExactly(EventClaim.inFlight(second.expiresAtMillis()));
  }

  @Test
  void releaseFreesOnlyTheClaimsOwnKeys() {
    Outcome.EventsClaimed c = claim(clock, key(1));
    assertThat(apply(new ReleaseEvents(at(clock), 1L, c.claimId() + 99, List.of(key(1)))))
        .isEqualTo(new Outcome.EventsRemoved(0));
    assertThat(apply(new ReleaseEvents(at(clock), 1L, c.claimId(), List.of(key(1), key(2)))))
        .isEqualTo(new Outcome.EventsRemoved(1));
    assertThat(claim(clock, key(1)).claims()).containsExactly(EventClaim.claimed());
  }

  @Test
  void pruneRemovesExpiredEntriesOldestFirstAndUpToItsLimit() {
    long t0 = clock;
    claim(t0, key(3));
    claim(t0 + 5, key(1));
    claim(t0 + 10, key(2));
    assertThat(apply(new PruneEvents(at(t0 + 10), 10))).isEqualTo(new Outcome.EventsRemoved(0));
    // key 3 and key 1 lapsed, key 2 not yet: the oldest go first
    assertThat(apply(new PruneEvents(at(t0 + 120_006), 10)))
        .isEqualTo(new Outcome.EventsRemoved(2));
    assertThat(m.events().size()).isEqualTo(1);
    assertThat(claim(t0 + 120_007, key(2)).claims())
        .containsExactly(EventClaim.inFlight(t0 + 10 + 120_000));
    assertThat(apply(new PruneEvents(at(t0 + 400_000), 1))).isEqualTo(new Outcome.EventsRemoved(1));
    assertThat(m.events().isDefault()).isTrue();
  }

  @Test
  void badCommandsAreRefused() {
    assertThat(apply(new ClaimEvents(at(clock), 9L, 1, List.of(key(1)))))
        .isInstanceOf(Outcome.Rejected.class);
    assertThat(apply(new ClaimEvents(at(clock), 1L, 0, List.of(key(1)))))
        .isInstanceOf(Outcome.Rejected.class);
    assertThat(apply(new ClaimEvents(at(clock), 1L, 86_400_001, List.of(key(1)))))
        .isInstanceOf(Outcome.Rejected.class);
    assertThat(apply(new ClaimEvents(at(clock), 1L, 1, List.of(key(1), key(1)))))
        .isInstanceOf(Outcome.Rejected.class);
    assertThat(apply(new ClaimEvents(at(clock), 1L, 1, List.of())))
        .isInstanceOf(Outcome.Rejected.class);
    assertThat(
            apply(
                new CompleteEvents(
                    at(clock), 1L, 1, 1000, List.of(new CompletedEvent(key(1), 2, 0)))))
        .isInstanceOf(Outcome.Rejected.class);
    assertThat(apply(new PruneEvents(at(clock), 0))).isInstanceOf(Outcome.Rejected.class);
    assertThat(m.events().isDefault()).isTrue();
  }

  @Test
  void snapshotIsV9WhileTheLedgerHoldsAnEntryAndDeletingTheStreamDropsIt() {
    byte[] before = m.snapshot();
    Outcome.EventsClaimed c = claim(clock, key(1), key(2));
    apply(
        new CompleteEvents(
            at(clock), 1L, c.claimId(), 60_000, List.of(new CompletedEvent(key(1), 1, 4))));
    byte[] snap = m.snapshot();
    assertThat(snap[5]).as("version").isEqualTo((byte) 9);
    MetaStateMachine restored = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(restored.snapshot()).isEqualTo(snap);
    assertThat(
            restored.apply(
                index + 1, new ClaimEvents(at(clock), 1L, 1000, List.of(key(1), key(2)))))
        .isEqualTo(
            new Outcome.EventsClaimed(
                index + 1,
                clock + 1000,
                List.of(EventClaim.duplicate(1, 4), EventClaim.inFlight(c.expiresAtMillis()))));
    // damage: every single-byte change of the ledger section is refused or read as another state
    for (int i = snap.length - 4 - 110; i < snap.length - 4; i++) {
      byte[] bad = snap.clone();
      bad[i] ^= 0x01;
      assertThatThrownBy(() -> MetaStateMachine.restore(bad, MetaSettings.defaults()))
          .isInstanceOf(CorruptionException.class);
    }
    apply(new DeleteStream(at(clock), "default", "s"));
    assertThat(m.events().isDefault()).isTrue();
    assertThat(m.snapshot()[5]).isLessThan((byte) 9);
    assertThat(before[5]).isLessThan((byte) 9);
  }
}
