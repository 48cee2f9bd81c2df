package dev.loam.meta.state;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.CompleteEvents;
import dev.loam.meta.command.CompletedEvent;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.EventKey;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * What the CloudEvents dedupe ledger costs per event held for the window: snapshot bytes and heap
 * bytes of the state machine, after {@code events} claims and completions in requests of {@code
 * batch} keys. Not a JUnit test; run by the command in docs/reference/cloudevents.md ("Cost").
 *
 * <p>Arguments: {@code [events (200000)] [batch (100)]}.
 */
public final class EventLedgerFootprintBench {
  private EventLedgerFootprintBench() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int batch = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    long index = 0;
    long t = 1_780_000_000_000L;
    m.apply(++index, new RegisterNode(new Origin("n1", 1, t), null, 1, null));
    m.apply(
        ++index,
        new CreateStream(new Origin("n1", 1, t), "default", "s", StreamConfig.standard(4)));
    int before = m.snapshot().length;
    long heapBefore = usedHeap();
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (int done = 0; done < events; done += batch) {
      List<EventKey> keys = new ArrayList<>(batch);
      for (int i = 0; i < batch; i++) {
        keys.add(new EventKey(sha.digest(ByteBuffer.allocate(8).putLong(done + i).array())));
      }
      Origin o = new Origin("n1", 1, t);
      Outcome.EventsClaimed c =
          (Outcome.EventsClaimed) m.apply(++index, new ClaimEvents(o, 1L, 120_000, keys));
      List<CompletedEvent> completed = new ArrayList<>(batch);
      for (int i = 0; i < batch; i++) {
        completed.add(new CompletedEvent(keys.get(i), i % 4, done + i));
      }
      m.apply(++index, new CompleteEvents(o, 1L, c.claimId(), 3_600_000, completed));
    }
    long heapAfter = usedHeap();
    int after = m.snapshot().length;
    System.out.printf(
        "events=%d: snapshot %.1f bytes/event, heap %.1f bytes/event%n",
        events, (after - before) / (double) events, (heapAfter - heapBefore) / (double) events);
  }

  private static long usedHeap() throws InterruptedException {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return rt.totalMemory() - rt.freeMemory();
  }
}
