package dev.loam.kafka.internal.network;

import dev.loam.kafka.internal.api.ClientRequest;
import dev.loam.kafka.internal.api.SupportedApis;
import dev.loam.kafka.internal.security.Session;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Request frames in, response frames out, with Kafka's own generated classes so every version's
 * layout is exactly Kafka's. A frame (the 4-byte size already stripped) is a request header
 * followed by the body; a response frame is the 4-byte size, the response header (v1, with tagged
 * fields, for flexible versions; always v0 for ApiVersions, so that a client can read the answer
 * whatever version it asked for) and the body.
 */
public final class RequestCodec {
  private RequestCodec() {}

  /** What a frame decodes to. */
  public sealed interface Decoded {}

  /** A request the gateway serves. */
  public record Parsed(ClientRequest request) implements Decoded {}

  /**
   * An ApiVersions request of a version the gateway does not know: Kafka answers it with an
   * ApiVersions v0 response carrying UNSUPPORTED_VERSION and the supported ranges, so the client
   * can retry with a version both sides know.
   */
  public record UnsupportedApiVersions(int correlationId) implements Decoded {}

  /** A frame that cannot be served: the connection is closed, as Kafka does. */
  public static final class BadFrameException extends Exception {
    private static final long serialVersionUID = 1L;

    BadFrameException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Decodes one frame of a connection that never authenticates, acting in namespace {@code
   * default}: for tests and fuzzing, which exercise the framing alone.
   */
  public static Decoded decode(ByteBuffer frame, SupportedApis supported) throws BadFrameException {
    return decode(frame, supported, Session.open("default"));
  }

  /**
   * Decodes one frame of the connection whose state is {@code session}; {@code frame} is positioned
   * at the header and owned by the request.
   */
  public static Decoded decode(ByteBuffer frame, SupportedApis supported, Session session)
      throws BadFrameException {
    if (frame.remaining() < 8) {
      throw new BadFrameException(
          "request frame shorter than a header size=" + frame.remaining(), null);
    }
    int start = frame.position();
    short apiKey = frame.getShort(start);
    short version = frame.getShort(start + 2);
    int correlationId = frame.getInt(start + 4);
    if (!ApiKeys.hasId(apiKey)) {
      throw new BadFrameException("unknown API key apiKey=" + apiKey, null);
    }
    ApiKeys key = ApiKeys.forId(apiKey);
    if (!supported.supports(key, version)) {
      if (key == ApiKeys.API_VERSIONS && version >= 0) {
        return new UnsupportedApiVersions(correlationId);
      }
      throw new BadFrameException(
          "API or version not served api=" + key + " version=" + version, null);
    }
    try {
      ByteBuffer b = frame.slice();
      RequestHeader header = RequestHeader.parse(b);
      AbstractRequest body =
          AbstractRequest.parseRequest(key, version, new ByteBufferAccessor(b)).request;
      return new Parsed(new ClientRequest(header, body, session));
    } catch (RuntimeException e) {
      throw new BadFrameException(
          "malformed request api=" + key + " version=" + version + ": " + e.getMessage(), e);
    }
  }

  /** The response frame of a served request. */
  public static ByteBuf encode(ByteBufAllocator alloc, ClientRequest request, ApiMessage body) {
    short version = request.version();
    ApiKeys key = request.header().apiKey();
    return encode(
        alloc, request.header().correlationId(), key.responseHeaderVersion(version), body, version);
  }

  /** The ApiVersions v0 response to an ApiVersions request of an unknown version. */
  public static ByteBuf encodeUnsupportedApiVersions(
      ByteBufAllocator alloc, int correlationId, SupportedApis supported) {
    ApiVersionsResponseData data =
        new ApiVersionsResponseData()
            .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
            .setApiKeys(supported.asApiVersions());
    return encode(alloc, correlationId, (short) 0, data, (short) 0);
  }

  static ByteBuf encode(
      ByteBufAllocator alloc,
      int correlationId,
      short headerVersion,
      ApiMessage body,
      short version) {
    ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = header.size(cache, headerVersion) + body.size(cache, version);
    ByteBuffer buf = ByteBuffer.allocate(4 + size);
    buf.putInt(size);
    ByteBufferAccessor w = new ByteBufferAccessor(buf);
    header.write(w, cache, headerVersion);
    body.write(w, cache, version);
    buf.flip();
    ByteBuf out = alloc.buffer(buf.remaining());
    out.writeBytes(buf);
    return out;
  }
}
