package dev.loam.otlp.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.loam.otlp.internal.OtlpBodies.Format;
import dev.loam.otlp.internal.OtlpRefusal.Reason;
import io.grpc.Status;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OTLP/HTTP {@code POST /v1/logs} on one connection (docs/reference/otlp.md): checks path, method
 * and content type, hands the body to {@link OtlpIngest}, and answers once the records are
 * committed: the {@code ExportLogsServiceResponse} in the request's encoding, or a {@code
 * google.rpc.Status} with the refusal's status code (and {@code Retry-After} when the exporter
 * should retry). The body is decoded only after the key is verified.
 */
public final class OtlpHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  /** The one path served. */
  public static final String LOGS_PATH = "/v1/logs";

  private static final Logger LOG = LoggerFactory.getLogger(OtlpHttpHandler.class);
  private static final String PROTOBUF = "application/x-protobuf";
  private static final String JSON = "application/json";
  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().omittingInsignificantWhitespace();

  private final OtlpIngest ingest;

  public OtlpHttpHandler(OtlpIngest ingest) {
    this.ingest = ingest;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    if (!req.decoderResult().isSuccess()) {
      reply(ctx, false, error(Format.JSON, OtlpRefusal.malformed("malformed HTTP request")));
      return;
    }
    String uri = req.uri();
    int q = uri.indexOf('?');
    String path = q < 0 ? uri : uri.substring(0, q);
    if (!path.equals(LOGS_PATH)) {
      reply(
          ctx,
          keepAlive,
          status(
              HttpResponseStatus.NOT_FOUND,
              "no such path="
                  + OtlpBodies.printable(path)
                  + " (this receiver serves OTLP logs at POST /v1/logs)"));
      return;
    }
    if (!req.method().equals(HttpMethod.POST)) {
      FullHttpResponse r =
          status(
              HttpResponseStatus.METHOD_NOT_ALLOWED,
              "method=" + req.method() + " is not allowed on /v1/logs (POST only)");
      r.headers().set(HttpHeaderNames.ALLOW, "POST");
      reply(ctx, keepAlive, r);
      return;
    }
    Format format;
    try {
      format = OtlpBodies.format(req.headers().get(HttpHeaderNames.CONTENT_TYPE));
    } catch (OtlpRefusal r) {
      reply(ctx, keepAlive, error(Format.JSON, r));
      return;
    }
    byte[] body = ByteBufUtil.getBytes(req.content());
    // One request of a connection at a time: answers keep the order of (pipelined) requests,
    // and a connection holds at most one body in memory.
    ctx.channel().config().setAutoRead(false);
    String encoding = req.headers().get(HttpHeaderNames.CONTENT_ENCODING);
    int max = ingest.settings().maxRequestBytes();
    ingest
        .export(
            req.headers().get(HttpHeaderNames.AUTHORIZATION),
            req.headers().get(OtlpIngest.NAMESPACE_HEADER),
            req.headers().get(OtlpIngest.STREAM_HEADER),
            () -> OtlpBodies.decode(contentTypeOf(format), encoding, body, max),
            ctx.executor())
        .whenComplete(
            (resp, err) -> {
              FullHttpResponse r;
              if (err != null) {
                OtlpRefusal refusal = OtlpIngest.refusal(err);
                if (refusal.reason() == Reason.INTERNAL) {
                  LOG.warn("OTLP/HTTP export failed: {}", refusal.getMessage(), err);
                }
                r = error(format, refusal);
              } else {
                r = ok(format, resp);
              }
              reply(ctx, keepAlive, r);
              ctx.channel().config().setAutoRead(true);
            });
  }

  private static String contentTypeOf(Format f) {
    return f == Format.PROTOBUF ? PROTOBUF : JSON;
  }

  private static FullHttpResponse ok(Format f, Message m) {
    return response(HttpResponseStatus.OK, f, m);
  }

  /** A refusal as a {@code google.rpc.Status} body with its HTTP status. */
  static FullHttpResponse error(Format f, OtlpRefusal r) {
    com.google.rpc.Status s =
        com.google.rpc.Status.newBuilder()
            .setCode(Status.Code.valueOf(r.reason().grpcCode()).value())
            .setMessage(r.getMessage() == null ? "" : r.getMessage())
            .build();
    FullHttpResponse resp = response(HttpResponseStatus.valueOf(r.reason().httpStatus()), f, s);
    if (r.retryAfterSeconds() > 0) {
      resp.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(r.retryAfterSeconds()));
    }
    if (r.reason() == Reason.UNAUTHENTICATED) {
      resp.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"loam\"");
    }
    return resp;
  }

  private static FullHttpResponse status(HttpResponseStatus st, String message) {
    com.google.rpc.Status s =
        com.google.rpc.Status.newBuilder()
            .setCode(
                (st.code() == 404 ? Status.Code.UNIMPLEMENTED : Status.Code.INVALID_ARGUMENT)
                    .value())
            .setMessage(message)
            .build();
    return response(st, Format.JSON, s);
  }

  private static FullHttpResponse response(HttpResponseStatus st, Format f, Message m) {
    byte[] bytes;
    if (f == Format.PROTOBUF) {
      bytes = m.toByteArray();
    } else {
      try {
        bytes = PRINTER.print(m).getBytes(StandardCharsets.UTF_8);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("cannot print " + m.getClass().getSimpleName(), e);
      }
    }
    FullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, st, Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentTypeOf(f));
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    return r;
  }

  private static void reply(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse r) {
    if (keepAlive) {
      HttpUtil.setKeepAlive(r, true);
      ctx.writeAndFlush(r);
    } else {
      ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("OTLP/HTTP connection failed, closing it: {}", cause.toString());
    ctx.close();
  }
}
