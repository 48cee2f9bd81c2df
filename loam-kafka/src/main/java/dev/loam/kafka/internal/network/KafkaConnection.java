package dev.loam.kafka.internal.network;

import dev.loam.kafka.internal.api.ClientRequest;
import dev.loam.kafka.internal.api.Dispatcher;
import dev.loam.kafka.internal.security.Session;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: decodes each request frame, hands it to the {@link Dispatcher} at once and
 * writes the responses strictly in request order. Kafka clients pipeline (a producer keeps up to
 * five requests in flight per connection), so requests of one connection are processed concurrently
 * — five produce requests land in the same WAL flush instead of five consecutive ones — while the
 * order of answers is the order of requests, which Kafka's protocol requires (responses are matched
 * to requests by position as well as correlation id).
 *
 * <p>All state is touched on the channel's event loop only. At most {@code maxInFlight} requests
 * are pending; reading from the socket pauses until the oldest is answered. A frame that cannot be
 * served (malformed, an API or version not advertised, larger than the limit) closes the
 * connection, as Kafka does; nothing of it is stored.
 *
 * <p>The connection's {@link Session} admits each request first: one it refuses (authentication
 * required but not done, a revoked key, an expired session) closes the connection, as Kafka does; a
 * failed SASL exchange closes it once its answer is written.
 */
public final class KafkaConnection extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaConnection.class);

  private final Dispatcher dispatcher;
  private final int maxInFlight;
  private final Session session;
  private final ArrayDeque<Slot> pending = new ArrayDeque<>();
  private boolean closed;

  public KafkaConnection(Dispatcher dispatcher, int maxInFlight, Session session) {
    this.dispatcher = dispatcher;
    this.maxInFlight = maxInFlight;
    this.session = session;
  }

  /** One request awaiting its turn to be answered. */
  private static final class Slot {
    boolean done;
    ByteBuf response;
    boolean closeAfter;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    byte[] bytes;
    try {
      bytes = new byte[frame.readableBytes()];
      frame.readBytes(bytes);
    } finally {
      frame.release();
    }
    if (closed) {
      return;
    }
    if (session.awaitsRawToken()) {
      rawToken(ctx, bytes);
      return;
    }
    RequestCodec.Decoded decoded;
    try {
      decoded = RequestCodec.decode(ByteBuffer.wrap(bytes), dispatcher.supported(), session);
    } catch (RequestCodec.BadFrameException e) {
      LOG.debug("closing connection remote={}: {}", ctx.channel().remoteAddress(), e.getMessage());
      close(ctx);
      return;
    }
    if (decoded instanceof RequestCodec.Parsed p) {
      Optional<String> refused = session.admit(p.request().header().apiKey());
      if (refused.isPresent()) {
        LOG.debug("closing connection remote={}: {}", ctx.channel().remoteAddress(), refused.get());
        close(ctx);
        return;
      }
    }
    Slot slot = new Slot();
    pending.add(slot);
    if (decoded instanceof RequestCodec.UnsupportedApiVersions u) {
      slot.response =
          RequestCodec.encodeUnsupportedApiVersions(
              ctx.alloc(), u.correlationId(), dispatcher.supported());
      slot.done = true;
      drain(ctx);
    } else {
      ClientRequest request = ((RequestCodec.Parsed) decoded).request();
      dispatcher
          .dispatch(request)
          .whenComplete(
              (response, t) ->
                  ctx.executor().execute(() -> complete(ctx, slot, request, response, t)));
    }
    if (pending.size() >= maxInFlight) {
      ctx.channel().config().setAutoRead(false);
    }
  }

  /** A bare SASL token after a v0 handshake: its answer is a bare token, a failure closes. */
  private void rawToken(ChannelHandlerContext ctx, byte[] token) {
    Slot slot = new Slot();
    pending.add(slot);
    session
        .authenticate(token)
        .whenComplete(
            (r, t) ->
                ctx.executor()
                    .execute(
                        () -> {
                          slot.done = true;
                          session.takeCloseRequest();
                          if (t != null || r.errorCode() != 0) {
                            slot.closeAfter = true;
                          } else if (!closed) {
                            byte[] answer = r.authBytes();
                            slot.response = ctx.alloc().buffer(4 + answer.length);
                            slot.response.writeInt(answer.length).writeBytes(answer);
                          }
                          drain(ctx);
                        }));
  }

  private void complete(
      ChannelHandlerContext ctx,
      Slot slot,
      ClientRequest request,
      Optional<ApiMessage> response,
      Throwable failure) {
    slot.done = true;
    if (failure != null) {
      // The request cannot be answered at all; answering the later ones would shift every answer
      // by one, so the connection closes, as for a malformed frame.
      LOG.debug(
          "closing connection remote={}: {}", ctx.channel().remoteAddress(), failure.getMessage());
      close(ctx);
      return;
    }
    if (!closed && response != null && response.isPresent()) {
      try {
        slot.response = RequestCodec.encode(ctx.alloc(), request, response.get());
      } catch (RuntimeException e) {
        LOG.warn(
            "cannot encode a response api={} version={}",
            request.header().apiKey(),
            request.version(),
            e);
        close(ctx);
        return;
      }
    }
    ApiKeys api = request.header().apiKey();
    if ((api == ApiKeys.SASL_HANDSHAKE || api == ApiKeys.SASL_AUTHENTICATE)
        && session.takeCloseRequest()) {
      slot.closeAfter = true;
    }
    drain(ctx);
  }

  private void drain(ChannelHandlerContext ctx) {
    boolean wrote = false;
    while (!pending.isEmpty() && pending.peek().done) {
      Slot s = pending.poll();
      if (s.response != null) {
        if (closed) {
          s.response.release();
        } else {
          ctx.write(s.response);
          wrote = true;
        }
      }
      if (s.closeAfter && !closed) {
        // A failed SASL exchange: its answer goes out, then the connection closes, as Kafka does.
        ctx.flush();
        close(ctx);
        return;
      }
    }
    if (wrote) {
      ctx.flush();
    }
    if (!closed && pending.size() < maxInFlight && !ctx.channel().config().isAutoRead()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  private void close(ChannelHandlerContext ctx) {
    closed = true;
    for (Slot s : pending) {
      if (s.response != null) {
        s.response.release();
        s.response = null;
      }
    }
    ctx.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof TooLongFrameException) {
      LOG.debug(
          "closing connection remote={}: {}", ctx.channel().remoteAddress(), cause.getMessage());
    } else if (!(cause instanceof IOException)) {
      LOG.warn("closing connection remote={}", ctx.channel().remoteAddress(), cause);
    }
    close(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    ctx.fireChannelInactive();
  }
}
