package dev.loam.grpc.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import dev.loam.grpc.v1.FetchedRecord;
import dev.loam.grpc.v1.StreamServiceGrpc;
import dev.loam.grpc.v1.SubscribeRequest;
import dev.loam.grpc.v1.SubscribeResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A Java client of the {@code loam.v1} gRPC API (docs/reference/grpc.md "The Java client"): one
 * channel per node address, the API key on every call, owner redirects followed, and subscriptions
 * that resume from the next undelivered offset after a failure, on the next address. Thread-safe;
 * close it to release the channels.
 */
public final class LoamGrpcClient implements AutoCloseable {
  /** How many {@code not_owner} answers one {@link #call} follows before giving up. */
  public static final int MAX_REDIRECTS = 3;

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** Codes after which a subscription resumes rather than ends. */
  private static final Set<Status.Code> RESUMABLE =
      Set.of(
          Status.Code.UNAVAILABLE,
          Status.Code.CANCELLED,
          Status.Code.UNKNOWN,
          Status.Code.INTERNAL,
          Status.Code.DEADLINE_EXCEEDED,
          Status.Code.ABORTED);

  private final List<String> addresses;
  private final String apiKey;
  private final ChannelCredentials credentials;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler;

  private LoamGrpcClient(Builder b) {
    this.addresses = List.copyOf(b.addresses);
    this.apiKey = b.apiKey;
    this.credentials = b.credentials;
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "loam-grpc-client");
              t.setDaemon(true);
              return t;
            });
  }

  /** A builder; at least one address is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** The node addresses ({@code host:port}) this client was given, in order. */
  public List<String> addresses() {
    return addresses;
  }

  /** The channel to {@code address} ({@code host:port}), with the API key attached. */
  public Channel channel(String address) {
    ManagedChannel c =
        channels.computeIfAbsent(address, a -> Grpc.newChannelBuilder(a, credentials).build());
    return apiKey == null ? c : ClientInterceptors.intercept(c, new KeyInterceptor(apiKey));
  }

  /**
   * Runs {@code rpc} (a blocking-stub call) on the first address; on a {@code not_owner} answer
   * naming the owner's gRPC address, runs it again there, at most {@value #MAX_REDIRECTS} times.
   * Every other failure is thrown as the {@link StatusRuntimeException} it is.
   */
  public <T> T call(Function<Channel, T> rpc) {
    return callAt(addresses.get(0), rpc);
  }

  /** As {@link #call}, starting at {@code address}. */
  public <T> T callAt(String address, Function<Channel, T> rpc) {
    String at = address;
    for (int hop = 0; ; hop++) {
      try {
        return rpc.apply(channel(at));
      } catch (StatusRuntimeException e) {
        Optional<ErrorInfo> info = errorInfo(e);
        String owner =
            info.filter(i -> i.getReason().equals("not_owner"))
                .map(i -> i.getMetadataOrDefault("owner_grpc_address", ""))
                .orElse("");
        if (owner.isEmpty() || owner.equals(at) || hop >= MAX_REDIRECTS) {
          throw e;
        }
        at = owner;
      }
    }
  }

  /** The {@code google.rpc.ErrorInfo} of a failed call, if its status carries one. */
  public static Optional<ErrorInfo> errorInfo(Throwable t) {
    com.google.rpc.Status s = StatusProto.fromThrowable(t);
    if (s == null) {
      return Optional.empty();
    }
    for (Any a : s.getDetailsList()) {
      if (a.is(ErrorInfo.class)) {
        try {
          return Optional.of(a.unpack(ErrorInfo.class));
        } catch (InvalidProtocolBufferException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Subscribes to one partition from {@code request.offset}: hands each record to {@code onRecord}
   * in offset order, each exactly once, resuming after a failure on the next address from the next
   * undelivered offset. Ends on {@link Subscription#close()}, or with {@code onError} for a failure
   * a retry cannot fix (NOT_FOUND, INVALID_ARGUMENT, OUT_OF_RANGE, PERMISSION_DENIED...). Records
   * arrive on a gRPC thread, one message at a time: the next message is requested once the callback
   * returned for every record of the previous one.
   */
  public Subscription subscribe(
      SubscribeRequest request,
      Consumer<FetchedRecord> onRecord,
      Consumer<StatusRuntimeException> onError) {
    Subscription s = new Subscription(request, onRecord, onError);
    s.open();
    return s;
  }

  /** As {@link #subscribe(SubscribeRequest, Consumer, Consumer)}, ignoring terminal errors. */
  public Subscription subscribe(SubscribeRequest request, Consumer<FetchedRecord> onRecord) {
    return subscribe(request, onRecord, e -> {});
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    for (ManagedChannel c : channels.values()) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels.values()) {
      try {
        c.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** A subscription held open across reconnects. */
  public final class Subscription implements AutoCloseable {
    private final SubscribeRequest request;
    private final Consumer<FetchedRecord> onRecord;
    private final Consumer<StatusRuntimeException> onError;
    // Guarded by this.
    private long next;
    private int addressIndex;
    private int attempts;
    private long resumes;
    private boolean closed;
    private ClientCallStreamObserver<SubscribeRequest> call;

    private Subscription(
        SubscribeRequest request,
        Consumer<FetchedRecord> onRecord,
        Consumer<StatusRuntimeException> onError) {
      this.request = request;
      this.onRecord = onRecord;
      this.onError = onError;
      this.next = request.getOffset();
    }

    /** The offset of the next record this subscription delivers. */
    public synchronized long nextOffset() {
      return next;
    }

    /** How many times it resubscribed after a failure. */
    public synchronized long resumes() {
      return resumes;
    }

    /** The address it is subscribed through now. */
    public synchronized String address() {
      return addresses.get(addressIndex % addresses.size());
    }

    private void open() {
      SubscribeRequest req;
      String at;
      synchronized (this) {
        if (closed) {
          return;
        }
        req = request.toBuilder().setOffset(next).build();
        at = addresses.get(addressIndex % addresses.size());
      }
      StreamServiceGrpc.newStub(channel(at)).subscribe(req, new Observer());
    }

    private final class Observer
        implements ClientResponseObserver<SubscribeRequest, SubscribeResponse> {
      private ClientCallStreamObserver<SubscribeRequest> own;

      @Override
      public void beforeStart(ClientCallStreamObserver<SubscribeRequest> c) {
        own = c;
        c.disableAutoRequestWithInitial(1);
        synchronized (Subscription.this) {
          call = c;
        }
      }

      @Override
      public void onNext(SubscribeResponse m) {
        for (FetchedRecord r : m.getRecordsList()) {
          synchronized (Subscription.this) {
            if (closed || r.getOffset() < next) {
              continue;
            }
            next = r.getOffset() + 1;
            attempts = 0;
          }
          onRecord.accept(r);
        }
        own.request(1);
      }

      @Override
      public void onError(Throwable t) {
        StatusRuntimeException e =
            t instanceof StatusRuntimeException s
                ? s
                : Status.fromThrowable(t).asRuntimeException();
        long delay;
        synchronized (Subscription.this) {
          if (closed) {
            return;
          }
          if (!RESUMABLE.contains(e.getStatus().getCode())) {
            closed = true;
            delay = -1;
          } else {
            attempts++;
            resumes++;
            addressIndex++;
            delay = Math.min(2000, 50L << Math.min(attempts, 5));
          }
        }
        if (delay < 0) {
          onError.accept(e);
          return;
        }
        try {
          scheduler.schedule(Subscription.this::open, delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException ignored) {
          // The client is closing.
        }
      }

      @Override
      public void onCompleted() {
        onError(
            Status.UNAVAILABLE.withDescription("the server ended the stream").asRuntimeException());
      }
    }

    /**
     * Ends the subscription; no record is delivered after this returns (except one in progress).
     */
    @Override
    public void close() {
      ClientCallStreamObserver<SubscribeRequest> c;
      synchronized (this) {
        closed = true;
        c = call;
      }
      if (c != null) {
        c.cancel("subscription closed", null);
      }
    }
  }

  /** Attaches {@code authorization: Bearer <key>} to every call. */
  private static final class KeyInterceptor implements ClientInterceptor {
    private final String header;

    KeyInterceptor(String apiKey) {
      this.header = "Bearer " + apiKey;
    }

    @Override
    public <Q, A> ClientCall<Q, A> interceptCall(
        MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<A> listener, Metadata headers) {
          headers.put(AUTHORIZATION, header);
          super.start(listener, headers);
        }
      };
    }
  }

  /** Builds a {@link LoamGrpcClient}. */
  public static final class Builder {
    private final List<String> addresses = new ArrayList<>();
    private String apiKey;
    private ChannelCredentials credentials = InsecureChannelCredentials.create();

    Builder() {}

    /** The nodes' gRPC addresses ({@code host:port}); the first is where calls start. */
    public Builder addresses(List<String> a) {
      addresses.addAll(a);
      return this;
    }

    /** The API key, {@code <id>.<secret>}, sent as {@code authorization: Bearer}. */
    public Builder apiKey(String key) {
      this.apiKey = Objects.requireNonNull(key, "apiKey");
      return this;
    }

    /** Channel credentials (TLS); plaintext by default. */
    public Builder credentials(ChannelCredentials c) {
      this.credentials = Objects.requireNonNull(c, "credentials");
      return this;
    }

    public LoamGrpcClient build() {
      if (addresses.isEmpty()) {
        throw new IllegalArgumentException("at least one address is required");
      }
      return new LoamGrpcClient(this);
    }
  }
}
