package dev.loam.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of one node's HTTP port that can lose an answer: once armed with a request
 * line prefix, the next request that starts with it is forwarded to the node, the node processes
 * it, and the proxy closes the client's connection instead of passing the answer on (a network
 * failure after the server acted, the case an idempotent producer exists for).
 */
final class DroppingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final AtomicReference<String> dropPrefix = new AtomicReference<>();
  private final AtomicInteger dropped = new AtomicInteger();
  private final List<Socket> sockets = new ArrayList<>();
  private volatile boolean closed;

  DroppingProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread t = new Thread(this::acceptLoop, "proxy-accept-" + server.getLocalPort());
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** The answer to the next request whose request line starts with {@code prefix} is lost. */
  void dropNextAnswerTo(String prefix) {
    dropPrefix.set(prefix);
  }

  /** How many answers were lost. */
  int dropped() {
    return dropped.get();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(upstream);
        }
        AtomicReference<Boolean> dropNext = new AtomicReference<>(false);
        start(() -> pumpRequests(client, upstream, dropNext));
        start(() -> pumpAnswers(upstream, client, dropNext));
      } catch (IOException e) {
        if (!closed) {
          // A failed upstream connect: the client sees its connection closed.
          continue;
        }
        return;
      }
    }
  }

  private static void start(Runnable r) {
    Thread t = new Thread(r, "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void pumpRequests(Socket from, Socket to, AtomicReference<Boolean> dropNext) {
    byte[] buf = new byte[64 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        String prefix = dropPrefix.get();
        if (prefix != null) {
          String head = new String(buf, 0, Math.min(n, 512), StandardCharsets.ISO_8859_1);
          if (head.startsWith(prefix) && dropPrefix.compareAndSet(prefix, null)) {
            dropNext.set(true);
          }
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // Either side closed.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private void pumpAnswers(Socket from, Socket to, AtomicReference<Boolean> dropNext) {
    byte[] buf = new byte[64 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        if (dropNext.get()) {
          // The node answered: it processed the request. The client never hears of it.
          dropped.incrementAndGet();
          return;
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // Either side closed.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    synchronized (sockets) {
      sockets.forEach(DroppingProxy::closeQuietly);
    }
  }
}
