package dev.loam.kafka;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceDataCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A blocking, one-socket Kafka client for tests that need exact requests: it frames Kafka's own
 * request classes (or raw bytes) and parses responses with Kafka's own response classes.
 */
final class RawKafkaClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;
  private int nextCorrelationId = 1;

  RawKafkaClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(15_000);
    socket.setTcpNoDelay(true);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
  }

  /** Sends {@code request} at its version and returns the header to read the answer with. */
  RequestHeader send(AbstractRequest request) throws IOException {
    RequestHeader h =
        new RequestHeader(request.apiKey(), request.version(), "raw-test", nextCorrelationId++);
    ByteBuffer b = request.serializeWithHeader(h);
    out.writeInt(b.remaining());
    out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
    out.flush();
    return h;
  }

  /** Sends a frame as given (the size prefix is added). */
  void sendFrame(byte[] frame) throws IOException {
    out.writeInt(frame.length);
    out.write(frame);
    out.flush();
  }

  /** Sends raw bytes, size prefix included. */
  void sendBytes(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Reads the next response frame's payload (header included). */
  ByteBuffer readFrame() throws IOException {
    int size = in.readInt();
    byte[] b = new byte[size];
    in.readFully(b);
    return ByteBuffer.wrap(b);
  }

  /** Reads the response to {@code header}. */
  @SuppressWarnings("unchecked")
  <T extends AbstractResponse> T read(RequestHeader header) throws IOException {
    return (T) AbstractResponse.parseResponse(readFrame(), header);
  }

  /** Sends and reads one request. */
  <T extends AbstractResponse> T call(AbstractRequest request) throws IOException {
    return read(send(request));
  }

  /** Whether the server closed the connection (within the socket timeout). */
  boolean closedByServer() throws IOException {
    socket.setSoTimeout(5_000);
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by peer
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** One RecordBatch v2 of {@code count} records with the given producer fields. */
  static MemoryRecords batch(long producerId, short epoch, int baseSequence, int count, long ts) {
    ByteBuffer buf = ByteBuffer.allocate(256 + count * 64);
    MemoryRecordsBuilder b =
        MemoryRecords.builder(
            buf,
            RecordBatch.CURRENT_MAGIC_VALUE,
            Compression.NONE,
            TimestampType.CREATE_TIME,
            0L,
            RecordBatch.NO_TIMESTAMP,
            producerId,
            epoch,
            baseSequence);
    for (int i = 0; i < count; i++) {
      b.append(ts + i, ("k" + i).getBytes(), ("v" + baseSequence + "-" + i).getBytes());
    }
    return b.build();
  }

  /** A Produce request (by topic name, v12) of one batch to partition 0 of {@code topic}. */
  static ProduceRequest produce(String topic, int partition, MemoryRecords records, short acks) {
    ProduceRequestData d =
        new ProduceRequestData()
            .setAcks(acks)
            .setTimeoutMs(10_000)
            .setTopicData(
                new TopicProduceDataCollection(
                    List.of(
                            new TopicProduceData()
                                .setName(topic)
                                .setPartitionData(
                                    List.of(
                                        new PartitionProduceData()
                                            .setIndex(partition)
                                            .setRecords(records))))
                        .iterator()));
    return new ProduceRequest.Builder((short) 3, (short) 12, d).build((short) 12);
  }

  /** The frame of a request header with {@code apiKey} and {@code version} and no body. */
  static byte[] headerOnly(int apiKey, int version, int correlationId) {
    ByteBuffer b = ByteBuffer.allocate(11);
    b.putShort((short) apiKey).putShort((short) version).putInt(correlationId);
    b.putShort((short) -1); // null client id
    b.put((byte) 0); // no tagged fields (flexible header v2)
    return b.array();
  }

  static ApiKeys key(short id) {
    return ApiKeys.forId(id);
  }
}
