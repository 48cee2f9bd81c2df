package dev.loam.journal.place;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.ratis.JournalGroup;
import dev.loam.journal.ratis.Journals;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.JournalPartition;
import dev.loam.meta.command.NodeInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Makes one node's {@link Journals} follow the metastore's journal placement (docs/design/quorum.md
 * "Placement"), driven from outside: each {@link #poll()} hosts every placed journal that names
 * this node as a replica (its replicas' addresses are their {@value #ENDPOINT} endpoints in the
 * node registry), and, on the journals this node leads, proposes a {@code HOST} for every assigned
 * partition the journal does not host yet. A journal whose replicas have not all advertised a
 * journal endpoint waits for a later pass. Work per pass is bounded by the placement: one host call
 * per journal, one proposal per assigned partition.
 *
 * <p>Not thread-safe: one driver calls {@link #poll()}, waiting for each pass before the next.
 */
public final class JournalPlacementDriver {
  /** The node endpoint name under which a node advertises its journal port. */
  public static final String ENDPOINT = dev.loam.spi.quorum.QuorumHost.ENDPOINT;

  private final Metastore metastore;
  private final Journals server;

  public JournalPlacementDriver(Metastore metastore, Journals server) {
    this.metastore = Objects.requireNonNull(metastore, "metastore");
    this.server = Objects.requireNonNull(server, "server");
  }

  /** What one pass saw: journals hosted now on this node, and the HOST proposals it made. */
  public record Pass(List<String> hostedJournals, List<JournalResult> hostResults) {}

  /**
   * One pass; completes once its HOST proposals are answered. Fails if hosting a journal or a
   * proposal failed (the next pass tries again: hosting and HOST are both idempotent).
   */
  public CompletableFuture<Pass> poll() {
    String self = server.nodeId();
    record Plan(JournalGroup group, List<JournalPartition> partitions) {}
    List<Plan> plans =
        metastore.read(
            (MetaReader r) -> {
              List<Plan> out = new ArrayList<>();
              for (Map.Entry<String, List<String>> j : r.journals().entrySet()) {
                if (!j.getValue().contains(self)) {
                  continue;
                }
                Map<String, String> addresses = new LinkedHashMap<>();
                for (String id : j.getValue()) {
                  String addr =
                      r.node(id).map(NodeInfo::endpoints).map(e -> e.get(ENDPOINT)).orElse(null);
                  if (addr == null) {
                    break;
                  }
                  addresses.put(id, addr);
                }
                if (addresses.size() == j.getValue().size()) {
                  out.add(
                      new Plan(
                          new JournalGroup(j.getKey(), addresses),
                          r.journalPartitions(j.getKey())));
                }
              }
              return out;
            });
    List<String> hosted = new ArrayList<>();
    List<CompletableFuture<JournalResult>> proposals = new ArrayList<>();
    try {
      for (Plan p : plans) {
        server.host(p.group());
        hosted.add(p.group().name());
        if (!server.isLeader(p.group().name())) {
          continue;
        }
        for (JournalPartition jp : p.partitions()) {
          if (server.highWatermark(p.group().name(), jp.streamId(), jp.partition()).isEmpty()) {
            // A partition new to the quorum class starts at offset 0; one moved in from another
            // journal will start at the sealed offset its old journal reached (not built).
            proposals.add(
                server.propose(
                    p.group().name(), new JournalEntry.Host(jp.streamId(), jp.partition(), 0)));
          }
        }
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return CompletableFuture.allOf(proposals.toArray(CompletableFuture[]::new))
        .thenApply(v -> new Pass(hosted, proposals.stream().map(CompletableFuture::join).toList()));
  }
}
