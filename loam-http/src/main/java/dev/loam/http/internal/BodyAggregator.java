package dev.loam.http.internal;

import dev.loam.error.LoamException.Kind;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Netty's aggregator with the request-body limit answered as a problem document (413 naming the
 * limit) instead of an empty body. The connection is closed after it, but only once the client has
 * sent the rest of the body (read and dropped) or after {@link #LINGER_MILLIS}: closing while the
 * client is still writing resets the connection, and a client such as the JDK's HttpClient then
 * reports a reset instead of the 413.
 */
public final class BodyAggregator extends HttpObjectAggregator {
  /** The longest wait for the rest of an oversized body before closing anyway. */
  static final long LINGER_MILLIS = 2_000;

  private final int maxBytes;
  private final HttpMetrics metrics;
  // Set once a 413 was sent: the rest of that body is dropped, then the connection closes.
  private boolean draining;

  public BodyAggregator(int maxBytes, HttpMetrics metrics) {
    super(maxBytes);
    this.maxBytes = maxBytes;
    this.metrics = metrics;
  }

  private FullHttpResponse tooLarge(HttpMessage m) {
    long declared = HttpUtil.getContentLength(m, -1L);
    HttpReply r =
        Errors.toReply(
            new ApiException(
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "body_too_large",
                Kind.INVALID,
                "the request body exceeds the limit maxRequestBytes="
                    + maxBytes
                    + (declared >= 0 ? " contentLength=" + declared : "")));
    FullHttpResponse resp =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, r.status(), Unpooled.wrappedBuffer(r.body()));
    resp.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
    resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    HttpUtil.setContentLength(resp, r.body().length);
    String method = m instanceof HttpRequest req ? req.method().name() : "UNKNOWN";
    metrics.record("rejected", method, r.status().code(), 0);
    return resp;
  }

  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    if (HttpUtil.is100ContinueExpected(start)
        && HttpUtil.getContentLength(start, -1L) > maxContentLength) {
      return tooLarge(start);
    }
    return super.newContinueResponse(start, maxContentLength, pipeline);
  }

  @Override
  protected boolean closeAfterContinueResponse(Object msg) {
    return msg instanceof FullHttpResponse r && r.status().code() >= 400
        || super.closeAfterContinueResponse(msg);
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    if (!(oversized instanceof HttpRequest)) {
      ctx.close();
      return;
    }
    draining = true;
    ctx.writeAndFlush(tooLarge(oversized))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE)
        .addListener(
            f -> ctx.executor().schedule(() -> ctx.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (!draining) {
      super.channelRead(ctx, msg);
      return;
    }
    boolean last = msg instanceof LastHttpContent;
    ReferenceCountUtil.release(msg);
    if (last) {
      ctx.close();
    }
  }
}
