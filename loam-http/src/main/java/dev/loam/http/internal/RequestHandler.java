package dev.loam.http.internal;

import dev.loam.error.LoamException.Kind;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection. Requests of a connection are answered one at a time and in order (HTTP/1.1
 * pipelining): later ones wait in a bounded queue, and reading from the socket pauses while it is
 * full. A request's reply is a future; no thread waits for it. All state here is touched only on
 * the channel's event loop.
 *
 * <p>No failure ends a request silently: an exception or error thrown while routing (a bug, or a
 * class missing or mismatched on the host's class path) and any unexpected failure of the reply
 * future are logged at ERROR with the request's method and target and answered with a 500 problem
 * document; if even that document cannot be rendered, a fixed one written without Jackson is sent.
 */
public final class RequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);

  /** The longest request target a log line carries; longer ones are cut. */
  static final int MAX_LOGGED_TARGET = 512;

  /** Pipelined requests queued behind the one being served before reading pauses. */
  static final int MAX_QUEUED = 16;

  private final ServerState state;
  private final ArrayDeque<FullHttpRequest> queued = new ArrayDeque<>();
  private Exchange current;

  public RequestHandler(ServerState state) {
    this.state = state;
  }

  /** What the server shares with every connection. */
  public interface ServerState {
    Api api();

    HttpMetrics metrics();

    /** True once the server is closing: new requests are refused with 503. */
    boolean closing();

    /** Registers an exchange so that close can wait for it or answer it. */
    void track(Exchange e);

    void untrack(Exchange e);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    state.metrics().connections.incrementAndGet();
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    state.metrics().connections.decrementAndGet();
    FullHttpRequest r;
    while ((r = queued.poll()) != null) {
      r.release();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest req)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (current != null) {
      queued.add(req);
      if (queued.size() >= MAX_QUEUED) {
        ctx.channel().config().setAutoRead(false);
      }
      return;
    }
    serve(ctx, req);
  }

  private void serve(ChannelHandlerContext ctx, FullHttpRequest req) {
    long start = System.nanoTime();
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    String method = req.method().name();
    String request = describe(req);
    Api.Call call;
    try {
      if (req.decoderResult().isFailure()) {
        keepAlive = false;
        call =
            new Api.Call(
                "unmatched",
                CompletableFuture.failedFuture(
                    ApiException.invalid(
                        "malformed HTTP request: " + req.decoderResult().cause().getMessage())),
                0,
                false,
                false);
      } else if (state.closing()) {
        keepAlive = false;
        call =
            new Api.Call(
                "unmatched",
                CompletableFuture.failedFuture(
                    new ApiException(
                        HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "shutting_down",
                        Kind.UNAVAILABLE,
                        "the server is shutting down")),
                0,
                false,
                false);
      } else {
        call = state.api().route(req, ctx.channel().remoteAddress());
      }
    } catch (Throwable t) {
      // Api.route answers every failure it expects; what reaches here is a bug or a broken class
      // path (a LinkageError), which Netty would otherwise log at DEBUG while closing the socket.
      LOG.error(
          "request handler failed request=\"{}\" remote={}",
          request,
          ctx.channel().remoteAddress(),
          t);
      keepAlive = false;
      call =
          new Api.Call(
              "unmatched",
              CompletableFuture.completedFuture(Errors.INTERNAL_FALLBACK),
              0,
              false,
              false);
    } finally {
      req.release();
    }
    Exchange ex = new Exchange(ctx, call, method, request, keepAlive, start);
    current = ex;
    state.track(ex);
    ex.begin();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      // Connection resets and the like: nothing to answer, nothing wrong on this side.
      LOG.debug("connection error remote={}", ctx.channel().remoteAddress(), cause);
    } else {
      LOG.error(
          "unexpected error on a connection, closing it remote={} request=\"{}\"",
          ctx.channel().remoteAddress(),
          current == null ? "none" : current.request,
          cause);
    }
    ctx.close();
  }

  /** The method and target of a request for a log line, bounded in length. */
  static String describe(FullHttpRequest req) {
    String uri = req.uri();
    if (uri.length() > MAX_LOGGED_TARGET) {
      uri = uri.substring(0, MAX_LOGGED_TARGET) + "...";
    }
    return req.method().name() + " " + uri;
  }

  /** One request being served: completes once its response was handed to the socket. */
  public final class Exchange {
    private final ChannelHandlerContext ctx;
    private final Api.Call call;
    private final String method;
    private final String request;
    private final boolean keepAlive;
    private final long startNanos;
    private final CompletableFuture<Void> written = new CompletableFuture<>();
    private ScheduledFuture<?> timer;
    private boolean answered;

    Exchange(
        ChannelHandlerContext ctx,
        Api.Call call,
        String method,
        String request,
        boolean keepAlive,
        long start) {
      this.ctx = ctx;
      this.call = call;
      this.method = method;
      this.request = request;
      this.keepAlive = keepAlive;
      this.startNanos = start;
    }

    /** Completes once the response was written (or could not be). */
    public CompletableFuture<Void> written() {
      return written;
    }

    public boolean isWrite() {
      return call.write();
    }

    void begin() {
      if (!call.reply().isDone() && call.timeoutMillis() > 0) {
        timer =
            ctx.executor().schedule(this::timedOut, call.timeoutMillis(), TimeUnit.MILLISECONDS);
      }
      call.reply()
          .whenComplete(
              (r, e) -> {
                HttpReply reply = e == null ? r : errorReply(e);
                if (ctx.executor().inEventLoop()) {
                  answer(reply);
                } else {
                  try {
                    ctx.executor().execute(() -> answer(reply));
                  } catch (RejectedExecutionException closed) {
                    finished();
                  }
                }
              });
    }

    /** The problem reply for a failed call; never throws. */
    private HttpReply errorReply(Throwable failure) {
      try {
        return Errors.toReply(failure, request);
      } catch (Throwable t) {
        t.addSuppressed(failure);
        LOG.error("cannot render the error reply request=\"{}\"", request, t);
        return Errors.INTERNAL_FALLBACK;
      }
    }

    private void timedOut() {
      // The Log call is still pending; answer now so the client is not held past the limit. A
      // produce may still be appended: its outcome is unknown to the client.
      ApiException a =
          call.write()
              ? new ApiException(
                  HttpResponseStatus.GATEWAY_TIMEOUT,
                  "outcome_unknown",
                  Kind.OUTCOME_UNKNOWN,
                  "the append did not complete in time; read the partition to learn whether it"
                      + " was appended timeoutMs="
                      + call.timeoutMillis())
              : new ApiException(
                  HttpResponseStatus.SERVICE_UNAVAILABLE,
                  "timeout",
                  Kind.UNAVAILABLE,
                  "the request did not complete in time timeoutMs=" + call.timeoutMillis());
      answer(Errors.toReply(a));
    }

    /** Answers 503 at once (server closing) unless already answered. Event loop only. */
    void abort() {
      answer(
          Errors.toReply(
              new ApiException(
                  HttpResponseStatus.SERVICE_UNAVAILABLE,
                  "shutting_down",
                  Kind.UNAVAILABLE,
                  "the server is shutting down")));
    }

    /**
     * Answers a produce the server stops waiting for, on this exchange's event loop: 504 {@code
     * outcome_unknown} (it may still be appended), unless already answered.
     */
    public void abortUnknownAsync(String why) {
      try {
        ctx.executor()
            .execute(
                () ->
                    answer(
                        Errors.toReply(
                            new ApiException(
                                HttpResponseStatus.GATEWAY_TIMEOUT,
                                "outcome_unknown",
                                Kind.OUTCOME_UNKNOWN,
                                "the server stopped before the append's outcome was known ("
                                    + why
                                    + "); read the partition to learn whether it was appended"))));
      } catch (RejectedExecutionException e) {
        finished();
      }
    }

    /** Runs {@link #abort} on this exchange's event loop. */
    public void abortAsync() {
      try {
        ctx.executor().execute(this::abort);
      } catch (RejectedExecutionException e) {
        finished();
      }
    }

    private void answer(HttpReply reply) {
      if (answered) {
        return;
      }
      answered = true;
      if (timer != null) {
        timer.cancel(false);
      }
      if (call.longPoll()) {
        state.metrics().longPolls.decrementAndGet();
      }
      state
          .metrics()
          .record(call.route(), method, reply.status().code(), System.nanoTime() - startNanos);
      boolean close = !keepAlive || state.closing();
      FullHttpResponse resp =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1, reply.status(), Unpooled.wrappedBuffer(reply.body()));
      if (reply.contentType() != null) {
        resp.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
      }
      for (Map.Entry<String, String> h : reply.headers().entrySet()) {
        resp.headers().set(h.getKey(), h.getValue());
      }
      HttpUtil.setContentLength(resp, reply.body().length);
      resp.headers()
          .set(
              HttpHeaderNames.CONNECTION,
              close ? HttpHeaderValues.CLOSE : HttpHeaderValues.KEEP_ALIVE);
      if (!ctx.channel().isActive()) {
        resp.release();
        finished();
        return;
      }
      ctx.writeAndFlush(resp)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    finished();
                    if (close || !f.isSuccess()) {
                      f.channel().close();
                      return;
                    }
                    current = null;
                    FullHttpRequest next = queued.poll();
                    if (next != null) {
                      serve(ctx, next);
                    } else {
                      ctx.channel().config().setAutoRead(true);
                    }
                  });
    }

    private void finished() {
      state.untrack(this);
      written.complete(null);
    }
  }
}
