package dev.loam.meta.codec;

import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CompleteEvents;
import dev.loam.meta.command.CompletedEvent;
import dev.loam.meta.command.EventKey;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.EventClaim;
import dev.loam.meta.command.PruneEvents;
import dev.loam.meta.command.ReleaseEvents;
import java.util.ArrayList;
import java.util.List;

/**
 * The encodings of the CloudEvents dedupe ledger's commands (tags 31–34) and outcomes (tags 22–24),
 * docs/formats/metastore-commands.md. {@link CommandCodec} and {@link OutcomeCodec} frame them
 * (version, tag, origin); this class writes and reads the bodies.
 */
final class EventLedgerCodec {
  static final int TAG_CLAIM_EVENTS = 31;
  static final int TAG_COMPLETE_EVENTS = 32;
  static final int TAG_RELEASE_EVENTS = 33;
  static final int TAG_PRUNE_EVENTS = 34;

  static final int TAG_EVENTS_CLAIMED = 22;
  static final int TAG_EVENTS_COMPLETED = 23;
  static final int TAG_EVENTS_REMOVED = 24;

  private EventLedgerCodec() {}

  /** True when {@code c} is a ledger command. */
  static boolean isLedger(Command c) {
    return c instanceof ClaimEvents
        || c instanceof CompleteEvents
        || c instanceof ReleaseEvents
        || c instanceof PruneEvents;
  }

  /** The tag of a ledger command. */
  static int tag(Command c) {
    if (c instanceof ClaimEvents) {
      return TAG_CLAIM_EVENTS;
    } else if (c instanceof CompleteEvents) {
      return TAG_COMPLETE_EVENTS;
    } else if (c instanceof ReleaseEvents) {
      return TAG_RELEASE_EVENTS;
    }
    return TAG_PRUNE_EVENTS;
  }

  /** The body of a ledger command, after its origin. */
  static void writeBody(BinaryWriter w, Command command) {
    if (command instanceof ClaimEvents c) {
      w.i64(c.streamId()).i64(c.pendingMillis()).i32(c.keys().size());
      for (EventKey k : c.keys()) {
        w.raw(k.bytes());
      }
    } else if (command instanceof CompleteEvents c) {
      w.i64(c.streamId()).i64(c.claimId()).i64(c.windowMillis()).i32(c.events().size());
      for (CompletedEvent e : c.events()) {
        w.raw(e.key().bytes()).i32(e.partition()).i64(e.offset());
      }
    } else if (command instanceof ReleaseEvents c) {
      w.i64(c.streamId()).i64(c.claimId()).i32(c.keys().size());
      for (EventKey k : c.keys()) {
        w.raw(k.bytes());
      }
    } else if (command instanceof PruneEvents c) {
      w.i32(c.maxEntries());
    }
  }

  /** The ledger command of {@code tag}, its origin already read. */
  static Command readBody(BinaryReader r, int tag, Origin o) {
    return switch (tag) {
      case TAG_CLAIM_EVENTS -> {
        long stream = r.i64("claimEvents.streamId");
        long pending = r.i64("claimEvents.pendingMillis");
        yield new ClaimEvents(o, stream, pending, keys(r, "claimEvents"));
      }
      case TAG_COMPLETE_EVENTS -> {
        long stream = r.i64("completeEvents.streamId");
        long claim = r.i64("completeEvents.claimId");
        long window = r.i64("completeEvents.windowMillis");
        int n = r.count("completeEvents.events.count", EventKey.LENGTH + 4 + 8);
        List<CompletedEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          EventKey k = new EventKey(r.raw(EventKey.LENGTH, "completeEvents.key"));
          events.add(
              new CompletedEvent(
                  k, r.i32("completeEvents.partition"), r.i64("completeEvents.offset")));
        }
        yield new CompleteEvents(o, stream, claim, window, events);
      }
      case TAG_RELEASE_EVENTS -> {
        long stream = r.i64("releaseEvents.streamId");
        long claim = r.i64("releaseEvents.claimId");
        yield new ReleaseEvents(o, stream, claim, keys(r, "releaseEvents"));
      }
      default -> new PruneEvents(o, r.i32("pruneEvents.maxEntries"));
    };
  }

  private static List<EventKey> keys(BinaryReader r, String cmd) {
    int n = r.count(cmd + ".keys.count", EventKey.LENGTH);
    List<EventKey> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(new EventKey(r.raw(EventKey.LENGTH, cmd + ".key")));
    }
    return keys;
  }

  /** True when {@code o} is a ledger outcome. */
  static boolean isLedger(Outcome o) {
    return o instanceof Outcome.EventsClaimed
        || o instanceof Outcome.EventsCompleted
        || o instanceof Outcome.EventsRemoved;
  }

  /** A ledger outcome, its tag included. */
  static void write(BinaryWriter w, Outcome outcome) {
    if (outcome instanceof Outcome.EventsClaimed o) {
      w.u8(TAG_EVENTS_CLAIMED).i64(o.claimId()).i64(o.expiresAtMillis()).i32(o.claims().size());
      for (EventClaim c : o.claims()) {
        switch (c.status()) {
          case CLAIMED -> w.u8(1);
          case DUPLICATE -> w.u8(2).i32(c.partition()).i64(c.offset());
          case IN_FLIGHT -> w.u8(3).i64(c.expiresAtMillis());
        }
      }
    } else if (outcome instanceof Outcome.EventsCompleted o) {
      w.u8(TAG_EVENTS_COMPLETED).i32(o.completed()).i32(o.notHeld());
    } else if (outcome instanceof Outcome.EventsRemoved o) {
      w.u8(TAG_EVENTS_REMOVED).i32(o.removed());
    }
  }

  /** The ledger outcome of {@code tag}. */
  static Outcome read(BinaryReader r, int tag) {
    return switch (tag) {
      case TAG_EVENTS_CLAIMED -> {
        long claim = r.i64("eventsClaimed.claimId");
        long expires = r.i64("eventsClaimed.expiresAtMillis");
        int n = r.count("eventsClaimed.claims.count", 1);
        List<EventClaim> claims = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          int status = r.u8("eventsClaimed.status");
          claims.add(
              switch (status) {
                case 1 -> EventClaim.claimed();
                case 2 ->
                    EventClaim.duplicate(
                        r.i32("eventsClaimed.partition"), r.i64("eventsClaimed.offset"));
                case 3 -> EventClaim.inFlight(r.i64("eventsClaimed.expiresAtMillis"));
                default -> throw r.corrupt("eventsClaimed.status", "unknown status=" + status);
              });
        }
        yield new Outcome.EventsClaimed(claim, expires, claims);
      }
      case TAG_EVENTS_COMPLETED ->
          new Outcome.EventsCompleted(
              r.i32("eventsCompleted.completed"), r.i32("eventsCompleted.notHeld"));
      default -> new Outcome.EventsRemoved(r.i32("eventsRemoved.removed"));
    };
  }
}
