package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.LoamNode;
import dev.loam.api.Role;
import dev.loam.http.Authentication;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access table covers every route, and the bootstrap rule of {@link Authentication#REQUIRED}:
 * the first key may be created without one from a loopback peer only, and only while no active key
 * exists. Runs without a socket, with the peer address given.
 */
class AccessTest {
  @TempDir Path dir;

  @Test
  void everyRouteHasAnAccessEntryAndOnlyHealthIsOpen() {
    Set<String> routes =
        new Api(null, null, new HttpMetrics(), new Api.Limits(1, 1, 1, 1, 1, 1))
            .routes().stream().map(Route::name).collect(Collectors.toSet());
    assertThat(Access.BY_ROUTE.keySet()).containsExactlyInAnyOrderElementsOf(routes);
    assertThat(
            Access.BY_ROUTE.entrySet().stream()
                .filter(e -> e.getValue() == Access.Need.OPEN)
                .map(java.util.Map.Entry::getKey))
        .containsExactlyInAnyOrder("health", "health_live", "health_ready");
    // A route missing from the table would need cluster-admin: closed by default.
    assertThat(Access.need("some_new_route")).isEqualTo(Access.Need.CLUSTER_ADMIN);
  }

  private static FullHttpRequest createKeyRequest() {
    byte[] body = "{\"roles\":[\"cluster-admin\"]}".getBytes(StandardCharsets.UTF_8);
    FullHttpRequest r =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/admin/keys", Unpooled.wrappedBuffer(body));
    r.headers().set("content-type", "application/json");
    return r;
  }

  private static int status(Api.Call c) throws Exception {
    try {
      return c.reply().get(10, TimeUnit.SECONDS).status().code();
    } catch (java.util.concurrent.ExecutionException e) {
      return Errors.toApi(e.getCause()).status().code();
    }
  }

  @Test
  void theBootstrapKeyNeedsALoopbackPeerAndNoActiveKey() throws Exception {
    try (LoamNode node = LoamNode.builder().nodeId("a").dataDir(dir).start()) {
      Api api =
          new Api(
              node.log(),
              null,
              new HttpMetrics(),
              new Api.Limits(1 << 20, 10, 1 << 20, 1 << 20, 1000, 10_000),
              IngestQuotas.unlimited(),
              Authentication.REQUIRED);
      InetSocketAddress remote = new InetSocketAddress("192.0.2.7", 40000);
      InetSocketAddress local = new InetSocketAddress("127.0.0.1", 40000);
      assertThat(status(api.route(createKeyRequest(), remote))).isEqualTo(401);
      assertThat(node.log().listApiKeys().get()).isEmpty();
      assertThat(status(api.route(createKeyRequest(), local))).isEqualTo(201);
      assertThat(node.log().hasActiveApiKeys()).isTrue();
      // A second keyless create, even from loopback, is refused now.
      assertThat(status(api.route(createKeyRequest(), local))).isEqualTo(401);
      // With every key revoked, loopback may bootstrap again (the machine's own operator).
      for (var k : node.log().listApiKeys().get()) {
        node.log().revokeApiKey(k.id()).get();
      }
      assertThat(status(api.route(createKeyRequest(), remote))).isEqualTo(401);
      assertThat(status(api.route(createKeyRequest(), local))).isEqualTo(201);

      // NONE never asks; WHEN_KEYS_EXIST asks now that a key exists.
      Api none =
          new Api(
              node.log(),
              null,
              new HttpMetrics(),
              new Api.Limits(1 << 20, 10, 1 << 20, 1 << 20, 1000, 10_000),
              IngestQuotas.unlimited(),
              Authentication.NONE);
      assertThat(status(none.route(createKeyRequest(), remote))).isEqualTo(201);
      CreatedApiKey admin =
          node.log().createApiKey(ApiKeySpec.clusterWide(Role.CLUSTER_ADMIN)).get();
      Api auto =
          new Api(
              node.log(),
              null,
              new HttpMetrics(),
              new Api.Limits(1 << 20, 10, 1 << 20, 1 << 20, 1000, 10_000),
              IngestQuotas.unlimited(),
              Authentication.WHEN_KEYS_EXIST);
      assertThat(status(auto.route(createKeyRequest(), local))).isEqualTo(401);
      FullHttpRequest withKey = createKeyRequest();
      withKey.headers().set("authorization", "Bearer " + admin.token());
      assertThat(status(auto.route(withKey, remote))).isEqualTo(201);
    }
  }
}
