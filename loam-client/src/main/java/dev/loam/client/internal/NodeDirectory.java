package dev.loam.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.client.NodeInfo;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which node the client talks to (stream-engine.txt §3 zone-aware discovery). It learns the live
 * nodes from {@code GET /v1/cluster/nodes?zone=Z} (the preferred tier) and {@code GET
 * /v1/cluster/nodes} (the fallback tier), sticks to one preferred node while it works, skips a
 * failed node for {@code nodeBackoff}, and refreshes the lists every {@code refreshInterval} and
 * after a failure. Candidates, in order: live nodes of the client's zone, then every other live
 * node, then the bootstrap URLs. Thread-safe; the lists are replaced, never mutated.
 */
public final class NodeDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(NodeDirectory.class);

  private final Settings settings;
  private final HttpClient http;
  private final List<String> bootstrap;

  /** Spreads clients over the nodes of a tier; fixed per client so it sticks to one. */
  private final int spread = ThreadLocalRandom.current().nextInt(1 << 16);

  private List<NodeInfo> zoneNodes = List.of();
  private List<NodeInfo> allNodes = List.of();
  private final Map<String, Long> failedUntilNanos = new HashMap<>();
  private String current;
  private boolean discovered;
  private long lastRefreshNanos;
  private CompletableFuture<Void> refreshing;

  public NodeDirectory(Settings settings, HttpClient http) {
    this.settings = settings;
    this.http = http;
    List<String> b = new ArrayList<>();
    for (String u : settings.bootstrap()) {
      b.add(Wire.normaliseAddress(u));
    }
    this.bootstrap = List.copyOf(b);
  }

  /**
   * Completes once the first discovery ran (successfully or not: the bootstrap URLs remain); starts
   * a background refresh when the lists are older than the refresh interval.
   */
  public CompletableFuture<Void> ready() {
    CompletableFuture<Void> r;
    synchronized (this) {
      if (discovered) {
        if (System.nanoTime() - lastRefreshNanos > settings.refreshInterval().toNanos()) {
          refresh();
        }
        return CompletableFuture.completedFuture(null);
      }
      r = refresh();
    }
    return r;
  }

  /** The live nodes of the last refresh (every zone). */
  public synchronized List<NodeInfo> nodes() {
    return allNodes;
  }

  /** The live nodes of the client's zone at the last refresh (every node if it has no zone). */
  public synchronized List<NodeInfo> zoneNodes() {
    return zoneNodes;
  }

  /** The node the client currently prefers, if it picked one. */
  public synchronized String current() {
    return current;
  }

  /**
   * The base URL for the next attempt, avoiding {@code avoid} (nodes this call already tried) and
   * nodes that failed recently, unless nothing else is left.
   */
  public synchronized String pick(Set<String> avoid) {
    List<List<String>> tiers = tiers();
    long now = System.nanoTime();
    for (boolean skipFailed : new boolean[] {true, false}) {
      for (List<String> tier : tiers) {
        List<String> ok = new ArrayList<>();
        for (String a : tier) {
          if (!avoid.contains(a) && !(skipFailed && failed(a, now))) {
            ok.add(a);
          }
        }
        if (ok.isEmpty()) {
          continue;
        }
        String chosen = ok.contains(current) ? current : ok.get(spread % ok.size());
        current = chosen;
        return chosen;
      }
    }
    // Every candidate was tried by this call: start over from the preferred one.
    for (List<String> tier : tiers) {
      if (!tier.isEmpty()) {
        return tier.get(spread % tier.size());
      }
    }
    return bootstrap.get(0);
  }

  /** {@code base} failed to answer: skip it for a while and refresh the lists. */
  public void markFailed(String base) {
    synchronized (this) {
      failedUntilNanos.put(base, System.nanoTime() + settings.nodeBackoff().toNanos());
      if (base.equals(current)) {
        current = null;
      }
    }
    LOG.debug("node failed, skipping it for {} node={}", settings.nodeBackoff(), base);
    refresh();
  }

  private boolean failed(String a, long now) {
    Long until = failedUntilNanos.get(a);
    return until != null && now - until < 0;
  }

  /** Preferred zone nodes, other live nodes, bootstrap URLs; each address once. */
  private List<List<String>> tiers() {
    Set<String> seen = new LinkedHashSet<>();
    List<String> first = addresses(zoneNodes.isEmpty() ? allNodes : zoneNodes, seen);
    List<String> second = addresses(allNodes, seen);
    List<String> third = new ArrayList<>();
    for (String b : bootstrap) {
      if (seen.add(b)) {
        third.add(b);
      }
    }
    return List.of(first, second, third);
  }

  private static List<String> addresses(List<NodeInfo> nodes, Set<String> seen) {
    List<String> out = new ArrayList<>();
    for (NodeInfo n : nodes) {
      if (!n.address().isEmpty() && seen.add(n.address())) {
        out.add(n.address());
      }
    }
    return out;
  }

  /**
   * Refreshes the lists from the first node that answers (the current one first); at most one
   * refresh runs at a time. Never fails: when no node answers, the old lists stay.
   */
  public CompletableFuture<Void> refresh() {
    List<String> sources;
    CompletableFuture<Void> done;
    synchronized (this) {
      if (refreshing != null) {
        return refreshing;
      }
      LinkedHashSet<String> s = new LinkedHashSet<>();
      long now = System.nanoTime();
      if (current != null) {
        s.add(current);
      }
      for (List<String> tier : tiers()) {
        for (String a : tier) {
          if (!failed(a, now)) {
            s.add(a);
          }
        }
      }
      // Failed nodes last: one may be back.
      for (List<String> tier : tiers()) {
        s.addAll(tier);
      }
      sources = new ArrayList<>(s);
      done = new CompletableFuture<>();
      refreshing = done;
    }
    tryRefresh(sources, 0).whenComplete((v, t) -> finishRefresh(done));
    return done;
  }

  private void finishRefresh(CompletableFuture<Void> done) {
    synchronized (this) {
      discovered = true;
      lastRefreshNanos = System.nanoTime();
      refreshing = null;
    }
    done.complete(null);
  }

  private CompletableFuture<Void> tryRefresh(List<String> sources, int i) {
    if (i >= sources.size()) {
      LOG.warn("no node answered the node list request; keeping the old list tried={}", sources);
      return CompletableFuture.completedFuture(null);
    }
    String source = sources.get(i);
    String zone = settings.zone();
    CompletableFuture<List<NodeInfo>> inZone =
        zone.isEmpty()
            ? CompletableFuture.completedFuture(null)
            : list(source, "?zone=" + URLEncoder.encode(zone, StandardCharsets.UTF_8));
    return inZone
        .thenCompose(z -> list(source, "").thenApply(all -> new Lists(z, all)))
        .handle(
            (lists, t) -> {
              if (t != null) {
                LOG.debug("node list request failed node={}", source, t);
                return tryRefresh(sources, i + 1);
              }
              List<NodeInfo> z = lists.zone();
              List<NodeInfo> all = lists.all();
              synchronized (this) {
                boolean wasEmpty = discovered && zoneNodes.isEmpty();
                allNodes = all;
                zoneNodes = z == null ? all : z;
                // Logged on the change only: a refresh runs every refreshInterval.
                if (z != null && z.isEmpty() && !wasEmpty) {
                  LOG.info(
                      "no live node in the client's zone; using the other zones' nodes zone={}"
                          + " nodes={}",
                      zone,
                      all.size());
                } else if (z != null && !z.isEmpty() && wasEmpty) {
                  LOG.info(
                      "the client's zone has live nodes again zone={} nodes={}", zone, z.size());
                }
              }
              return CompletableFuture.<Void>completedFuture(null);
            })
        .thenCompose(f -> f);
  }

  /** One refresh's answers; {@code zone} is null when the client has no zone. */
  private record Lists(List<NodeInfo> zone, List<NodeInfo> all) {}

  private CompletableFuture<List<NodeInfo>> list(String base, String query) {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create(base + "/v1/cluster/nodes" + query))
            .timeout(settings.connectTimeout().plus(settings.connectTimeout()))
            .GET()
            .build();
    return http.sendAsync(r, HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            resp -> {
              if (resp.statusCode() != 200) {
                throw Problems.toException(resp.statusCode(), resp.headers(), resp.body(), base);
              }
              JsonNode o = Wire.read(resp.body(), base);
              return Wire.nodes(o);
            });
  }
}
