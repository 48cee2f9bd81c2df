package dev.loam.kafka.internal.network;

import dev.loam.kafka.internal.api.ClientRequest;
import dev.loam.kafka.internal.api.Dispatcher;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Optional;
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
 */
public final class KafkaConnection extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaConnection.class);

  private final Dispatcher dispatcher;
  private final int maxInFlight;
  private final ArrayDeque<Slot> pending = new ArrayDeque<>();
  private boolean closed;

  public KafkaConnection(Dispatcher dispatcher, int maxInFlight) {
    this.dispatcher = dispatcher;
    this.maxInFlight = maxInFlight;
  }

  /** One request awaiting its turn to be answered. */
  private static final class Slot {
    boolean done;
    ByteBuf response;
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
    RequestCodec.Decoded decoded;
    try {
      decoded = RequestCodec.decode(ByteBuffer.wrap(bytes), dispatcher.supported());
    } catch (RequestCodec.BadFrameException e) {
      LOG.debug("closing connection remote={}: {}", ctx.channel().remoteAddress(), e.getMessage());
      close(ctx);
      return;
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
