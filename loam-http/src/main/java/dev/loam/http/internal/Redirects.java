package dev.loam.http.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.api.NotOwnerException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The 307 that sends an owner-bound request to the stream's owner. */
final class Redirects {
  private Redirects() {}

  /**
   * An owner-bound request reached a node that does not own the stream: 307 to the owner's
   * advertised address with the same path and query (ownership-and-routing.txt "Routing"), so
   * clients that follow redirects (curl -L, java.net.http with Redirect.NORMAL) resend it there. A
   * 307 keeps the method and body. Without an advertised address the problem document names the
   * owner instead (409 not_owner).
   */
  static CompletableFuture<HttpReply> redirectIfNotOwner(Throwable t, String uri) {
    Throwable cause = Errors.unwrap(t);
    if (!(cause instanceof NotOwnerException ne) || ne.ownerAddress().isEmpty()) {
      return CompletableFuture.failedFuture(cause);
    }
    String base = ne.ownerAddress();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    if (!base.contains("://")) {
      base = "http://" + base;
    }
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("type", "urn:loam:problem:not_owner");
    body.put("title", HttpResponseStatus.TEMPORARY_REDIRECT.reasonPhrase());
    body.put("status", 307);
    body.put("detail", ne.getMessage());
    body.put("code", "not_owner");
    body.put("owner", ne.ownerNodeId());
    body.put("owner_address", ne.ownerAddress());
    return CompletableFuture.completedFuture(
        new HttpReply(
            HttpResponseStatus.TEMPORARY_REDIRECT,
            HttpReply.PROBLEM_JSON,
            Json.bytes(body),
            Map.of("Location", base + uri, "Loam-Owner", ne.ownerNodeId())));
  }
}
