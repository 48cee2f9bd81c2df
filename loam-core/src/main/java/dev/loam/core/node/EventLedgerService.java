package dev.loam.core.node;

import dev.loam.api.EventLedger;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CompleteEvents;
import dev.loam.meta.command.CompletedEvent;
import dev.loam.meta.command.EventKey;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.ReleaseEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The CloudEvents dedupe ledger calls of {@link LogService}: each is one metastore proposal of
 * ClaimEvents, CompleteEvents or ReleaseEvents (docs/formats/metastore-commands.md), its outcome
 * turned into the API's answer or a typed error.
 */
final class EventLedgerService {
  private final NodeContext ctx;
  private final Metastore meta;

  EventLedgerService(NodeContext ctx) {
    this.ctx = ctx;
    this.meta = ctx.meta();
  }

  CompletableFuture<EventLedger.Claims> claim(
      long streamId, String subject, List<byte[]> keys, Duration pending) {
    List<EventKey> k;
    try {
      k = keys(keys, subject);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return propose(new ClaimEvents(ctx.origin(), streamId, pending.toMillis(), k), subject)
        .thenApply(
            o -> {
              Outcome.EventsClaimed c = (Outcome.EventsClaimed) o;
              List<EventLedger.Claim> out = new ArrayList<>(c.claims().size());
              for (Outcome.EventClaim e : c.claims()) {
                out.add(
                    new EventLedger.Claim(
                        EventLedger.Status.valueOf(e.status().name()),
                        e.partition(),
                        e.offset(),
                        e.expiresAtMillis()));
              }
              return new EventLedger.Claims(c.claimId(), c.expiresAtMillis(), out);
            });
  }

  CompletableFuture<Void> complete(
      long streamId,
      String subject,
      long claimId,
      Duration window,
      List<EventLedger.Completed> events) {
    List<CompletedEvent> out = new ArrayList<>(events.size());
    try {
      for (EventLedger.Completed e : events) {
        out.add(new CompletedEvent(key(e.key(), subject), e.partition(), e.offset()));
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return propose(
            new CompleteEvents(ctx.origin(), streamId, claimId, window.toMillis(), out), subject)
        .thenApply(o -> null);
  }

  CompletableFuture<Void> release(long streamId, String subject, long claimId, List<byte[]> keys) {
    List<EventKey> k;
    try {
      k = keys(keys, subject);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return propose(new ReleaseEvents(ctx.origin(), streamId, claimId, k), subject)
        .thenApply(o -> null);
  }

  private CompletableFuture<Outcome> propose(Command c, String subject) {
    return meta.propose(c)
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, subject);
              }
              return a.outcome();
            });
  }

  private static List<EventKey> keys(List<byte[]> keys, String subject) {
    List<EventKey> out = new ArrayList<>(keys.size());
    for (byte[] k : keys) {
      out.add(key(k, subject));
    }
    return out;
  }

  private static EventKey key(byte[] k, String subject) {
    if (k == null || k.length != EventKey.LENGTH) {
      throw new LoamException(
          Kind.INVALID,
          "an event key is "
              + EventKey.LENGTH
              + " bytes "
              + subject
              + " length="
              + (k == null ? "null" : k.length));
    }
    return new EventKey(k);
  }
}
