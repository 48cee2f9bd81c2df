package dev.loam.http.internal.routes;

import static io.netty.handler.codec.http.HttpMethod.GET;
import static io.netty.handler.codec.http.HttpMethod.POST;
import static io.netty.handler.codec.http.HttpMethod.PUT;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.NodeDescription;
import dev.loam.http.internal.ApiContext;
import dev.loam.http.internal.ApiException;
import dev.loam.http.internal.HttpReply;
import dev.loam.http.internal.Json;
import dev.loam.http.internal.JsonViews;
import dev.loam.http.internal.Request;
import dev.loam.http.internal.Route;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster's shared resources: producer ids, the node list, a node's slots, stream transfers
 * between nodes and moves of quorum partitions between journals.
 */
public final class ClusterRoutes {
  private final ApiContext ctx;

  public ClusterRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  /** The routes, in table order. */
  public List<Route> routes() {
    return List.of(
        Route.of(POST, "/v1/producers", "producer_allocate", this::allocateProducer).write(),
        Route.of(GET, "/v1/cluster/nodes", "cluster_nodes", this::nodes).params("zone"),
        Route.of(PUT, "/v1/admin/nodes/{id}/slots", "admin_node_slots", this::setSlots),
        Route.of(
                POST,
                "/v1/admin/streams/{ns}/{s}/transfer",
                "admin_stream_transfer",
                this::transfer)
            .params("to"),
        Route.of(
            POST,
            "/v1/admin/streams/{ns}/{s}/partitions/{p}/move",
            "admin_partition_move",
            this::movePartition));
  }

  private CompletableFuture<HttpReply> allocateProducer(Request r) {
    if (r.http().content().isReadable()) {
      Json.onlyFields(r.body(), "", Set.of());
    }
    return ctx.log()
        .allocateProducerId()
        .thenApply(
            id -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              o.put("producer_id", id.producerId());
              o.put("producer_epoch", id.producerEpoch());
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  private CompletableFuture<HttpReply> nodes(Request r) {
    return ctx.log()
        .listNodes(Optional.ofNullable(r.param("zone")))
        .thenApply(
            list -> {
              ObjectNode o = Json.MAPPER.createObjectNode();
              ArrayNode a = o.putArray("nodes");
              for (NodeDescription d : list) {
                JsonViews.node(a.addObject(), d);
              }
              return HttpReply.json(HttpResponseStatus.OK, Json.bytes(o));
            });
  }

  /** {@code PUT /v1/admin/nodes/{id}/slots} {@code {"slots":n}}. */
  private CompletableFuture<HttpReply> setSlots(Request r) {
    ObjectNode body = r.body();
    Json.onlyFields(body, "", Set.of("slots"));
    JsonNode slots = body.get("slots");
    if (slots == null || !slots.isIntegralNumber() || !slots.canConvertToInt()) {
      throw ApiException.invalid("slots must be an integer field=slots");
    }
    return ctx.log()
        .setNodeSlots(r.var("id"), slots.intValue())
        .thenApply(
            d ->
                HttpReply.json(
                    HttpResponseStatus.OK,
                    Json.bytes(JsonViews.node(Json.MAPPER.createObjectNode(), d))));
  }

  /** Owner-bound: a node that does not own the stream answers 307 to the owner. */
  private CompletableFuture<HttpReply> transfer(Request r) {
    String to = r.param("to");
    if (to == null || to.isEmpty()) {
      throw ApiException.invalid("a transfer names its target: ?to=<node id>");
    }
    return ctx.log()
        .transferStream(r.var("ns"), r.var("s"), to)
        .thenApply(o -> HttpReply.json(HttpResponseStatus.OK, Json.bytes(JsonViews.owner(o))));
  }

  /**
   * {@code POST /v1/admin/streams/{ns}/{s}/partitions/{p}/move} {@code {"to_journal":"..."}}: 202
   * once the move is begun; the source journal's leader carries it out.
   */
  private CompletableFuture<HttpReply> movePartition(Request r) {
    ObjectNode body = r.body();
    Json.onlyFields(body, "", Set.of("to_journal"));
    JsonNode to = body.get("to_journal");
    if (to == null || !to.isTextual() || to.textValue().isEmpty()) {
      throw ApiException.invalid("a move names its target journal field=to_journal");
    }
    return ctx.log()
        .moveJournalPartition(r.var("ns"), r.var("s"), r.partition(), to.textValue())
        .thenApply(
            m ->
                HttpReply.json(
                    HttpResponseStatus.ACCEPTED,
                    Json.bytes(JsonViews.journalMove(Json.MAPPER.createObjectNode(), m))));
  }
}
