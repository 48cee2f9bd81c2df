package dev.loam.http.internal;

import dev.loam.api.Principal;
import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Matches a request to its {@link Route} and starts the route's call. The refusals every route
 * shares live here, once: a malformed target (400), no such path (404 route_not_found), another
 * method (405 with {@code Allow}, the path's methods in table order), a bad {@code {p}} (400) and
 * unknown or repeated query parameters (400). Runs on the event loop and never throws: a refusal is
 * a failed {@link Api.Call}.
 *
 * <p>A request refused before its call starts is counted under a metrics label chosen by how far it
 * got: the group's label under a {@link Group} prefix; otherwise {@code unmatched} until one route
 * is known. A path with a single route is known by its path alone. On a path several methods share,
 * the route is known once the method is, but a query parameter every method of the path refuses
 * alike is a refusal of the path, still {@code unmatched}.
 *
 * <p>The order of the checks decides which refusal a request with several faults gets, and it is
 * part of the API: a {@link Group}'s query check, the path (404, or 400 for a bad {@code {p}}), the
 * method (405), the route's query check, then the handler's own checks.
 */
public final class Router {
  /** The metrics label of a request no route was found for. */
  static final String UNMATCHED = "unmatched";

  /** The path variable that holds a partition number. */
  private static final String PARTITION = "{p}";

  /**
   * Paths under {@code prefix} (a template prefix) whose refusals on the calling thread are all
   * counted as {@code label}, before and after a route is known. If {@code params} is not null, the
   * query is checked against it as soon as the path is under the prefix, before the rest of the
   * path is matched.
   */
  public record Group(String prefix, String label, Set<String> params) {}

  private record Template(String text, String[] parts, List<Route> routes, String allow) {
    Route route(HttpMethod m) {
      for (Route r : routes) {
        if (r.method().equals(m)) {
          return r;
        }
      }
      return null;
    }

    /** True when every method of the path takes the same query parameters. */
    boolean sharedParams() {
      return routes.stream().map(Route::params).distinct().count() == 1;
    }
  }

  private final List<Template> templates;
  private final List<Group> groups;
  private final ApiContext ctx;

  Router(List<Route> routes, List<Group> groups, ApiContext ctx) {
    Map<String, List<Route>> byTemplate = new LinkedHashMap<>();
    for (Route r : routes) {
      List<Route> same = byTemplate.computeIfAbsent(r.template(), t -> new ArrayList<>());
      for (Route s : same) {
        if (s.method().equals(r.method())) {
          throw new IllegalArgumentException(
              "two routes for method=" + r.method() + " template=" + r.template());
        }
      }
      same.add(r);
    }
    List<Template> ts = new ArrayList<>();
    for (Map.Entry<String, List<Route>> e : byTemplate.entrySet()) {
      List<Route> rs = List.copyOf(e.getValue());
      String allow = String.join(", ", rs.stream().map(r -> r.method().name()).toList());
      ts.add(new Template(e.getKey(), split(e.getKey()), rs, allow));
    }
    this.templates = List.copyOf(ts);
    this.groups = List.copyOf(groups);
    this.ctx = ctx;
  }

  /** Routes a request without authentication and starts its call; never throws. */
  Api.Call route(FullHttpRequest req) {
    return route(req, null);
  }

  /**
   * Routes a request and starts its call; never throws. {@code principal} is the key the request
   * was authenticated as, checked against the route's {@link Access} need after every other check
   * of the path and query and before the handler; null when authentication does not apply.
   */
  Api.Call route(FullHttpRequest req, Principal principal) {
    QueryStringDecoder q;
    List<String> seg;
    try {
      q = Params.query(req.uri());
      seg = segments(q.rawPath());
    } catch (RuntimeException e) {
      return failed(UNMATCHED, ApiException.invalid("malformed request target: " + req.uri()));
    }
    String group = null;
    Request r = null;
    String label = UNMATCHED;
    try {
      for (Group g : groups) {
        if (under(seg, g.prefix())) {
          label = group = g.label();
          if (g.params() != null) {
            Params.onlyParams(q, g.params());
          }
        }
      }
      Match match = match(seg);
      if (match == null) {
        throw notFoundRoute(q.rawPath());
      }
      Template t = match.template();
      // A path with one route names it before its method is checked.
      if (group == null && t.routes().size() == 1) {
        label = t.routes().get(0).name();
      }
      Route route = t.route(req.method());
      if (route == null) {
        throw methodNotAllowed(req.method(), t.allow());
      }
      // The method names the route, unless the query check is the path's (the same for every
      // method of the path): then a refusal stays the path's.
      if (group == null && !t.sharedParams()) {
        label = route.name();
      }
      if (route.params() != null) {
        Params.onlyParams(q, route.params());
      }
      label = group == null ? route.name() : group;
      r = new Request(req, q, match.vars(), match.partition(), ctx, principal);
      Access.check(route, r, principal);
      CompletableFuture<HttpReply> reply = route.handler().handle(r);
      return new Api.Call(
          route.name(),
          reply,
          ctx.limits().requestTimeoutMillis() + r.waitMillis(),
          r.holdsLongPoll(),
          route.kind() == Route.Kind.WRITE);
    } catch (RuntimeException e) {
      if (r != null && r.holdsLongPoll()) {
        ctx.releaseLongPoll();
      }
      return failed(label, e);
    }
  }

  /**
   * The route a request would be matched to, or null: for the metrics label and the timeout of a
   * request whose routing waits for its key's verification. Never throws.
   */
  Route peek(FullHttpRequest req) {
    try {
      Match match = match(segments(new QueryStringDecoder(req.uri()).rawPath()));
      return match == null ? null : match.template().route(req.method());
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** A call refused before routing (authentication), counted under its route if known. */
  Api.Call refused(FullHttpRequest req, RuntimeException e) {
    Route r = peek(req);
    return failed(r == null ? UNMATCHED : r.name(), e);
  }

  /** The routes in table order. */
  List<Route> routes() {
    return templates.stream().flatMap(t -> t.routes().stream()).toList();
  }

  /** A matched template with its variables; {@code partition} is -1 without a {@code {p}}. */
  private record Match(Template template, Map<String, String> vars, int partition) {}

  /**
   * The first template with as many segments as the path whose literals all match, binding its
   * variables. A {@code {p}} is checked as soon as every literal before it matched, so a bad
   * partition is a 400 even when the rest of the path names no route.
   */
  private Match match(List<String> seg) {
    for (Template t : templates) {
      String[] parts = t.parts();
      if (parts.length != seg.size()) {
        continue;
      }
      boolean matched = true;
      int partition = -1;
      for (int i = 0; i < parts.length && matched; i++) {
        String part = parts[i];
        if (!isVar(part)) {
          matched = part.equals(seg.get(i));
        } else if (part.equals(PARTITION)) {
          partition = Params.partition(seg.get(i));
        }
      }
      if (matched) {
        Map<String, String> vars = new HashMap<>();
        for (int i = 0; i < parts.length; i++) {
          if (isVar(parts[i])) {
            vars.put(parts[i].substring(1, parts[i].length() - 1), seg.get(i));
          }
        }
        return new Match(t, Map.copyOf(vars), partition);
      }
    }
    return null;
  }

  private static boolean under(List<String> seg, String prefix) {
    String[] parts = split(prefix);
    if (seg.size() < parts.length) {
      return false;
    }
    for (int i = 0; i < parts.length; i++) {
      if (!isVar(parts[i]) && !parts[i].equals(seg.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isVar(String part) {
    return part.startsWith("{") && part.endsWith("}");
  }

  private static String[] split(String template) {
    return segments(template).toArray(String[]::new);
  }

  private static List<String> segments(String rawPath) {
    List<String> out = new ArrayList<>();
    for (String s : rawPath.split("/")) {
      if (!s.isEmpty()) {
        out.add(QueryStringDecoder.decodeComponent(s, StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static Api.Call failed(String route, RuntimeException e) {
    return new Api.Call(route, CompletableFuture.failedFuture(e), 0, false, false);
  }

  private static ApiException notFoundRoute(String path) {
    return new ApiException(
        HttpResponseStatus.NOT_FOUND,
        "route_not_found",
        Kind.NOT_FOUND,
        "no such route path=" + path);
  }

  private static ApiException methodNotAllowed(HttpMethod m, String allowed) {
    return new ApiException(
        HttpResponseStatus.METHOD_NOT_ALLOWED,
        "method_not_allowed",
        Kind.INVALID,
        "method not allowed method=" + m.name() + " allowed=" + allowed,
        Map.of("allow", allowed));
  }
}
