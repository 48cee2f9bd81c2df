package dev.loam.kafka.internal.group;

import dev.loam.kafka.internal.api.ApiHandler;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;

/**
 * The classic protocol's membership APIs — JoinGroup (v0–9), SyncGroup (v0–5), Heartbeat (v0–4),
 * LeaveGroup (v0–5) — served by the group as this node coordinates it ({@link ClassicGroup}); a
 * node that does not coordinate the group answers NOT_COORDINATOR.
 */
public final class MembershipHandlers {
  private MembershipHandlers() {}

  /** Members do not report their address through the request; described as this. */
  static final String CLIENT_HOST = "/unknown";

  /** JoinGroup. */
  public static ApiHandler join(GroupApis apis) {
    return request -> {
      JoinGroupRequestData d = ((JoinGroupRequest) request.body()).data();
      short v = request.version();
      if (d.groupId().isEmpty()) {
        return answer(ClassicGroup.errorData(Errors.INVALID_GROUP_ID));
      }
      String clientId = request.clientId() == null ? "" : request.clientId();
      ConsumerGroup modern = apis.coordinator.loadedConsumer(apis.namespace(request), d.groupId());
      if (modern != null) {
        synchronized (modern) {
          if (!modern.members.isEmpty() && !modern.dead) {
            // The group id is taken by a KIP-848 group with members.
            return answer(ClassicGroup.errorData(Errors.INCONSISTENT_GROUP_PROTOCOL));
          }
        }
      }
      return apis.coordinator
          .load(apis.namespace(request), d.groupId())
          .thenCompose(
              g -> {
                synchronized (g) {
                  return g.join(d, v, clientId, CLIENT_HOST, apis.coordinator.now());
                }
              })
          .exceptionally(t -> ClassicGroup.errorData(GroupErrors.of(t)))
          .thenApply(r -> Optional.of((ApiMessage) r));
    };
  }

  /** SyncGroup. */
  public static ApiHandler sync(GroupApis apis) {
    return request -> {
      SyncGroupRequestData d = ((SyncGroupRequest) request.body()).data();
      short v = request.version();
      return apis.coordinator
          .load(apis.namespace(request), d.groupId())
          .thenCompose(
              g -> {
                synchronized (g) {
                  return g.sync(d, apis.coordinator.now());
                }
              })
          .exceptionally(
              t ->
                  new SyncGroupResponseData()
                      .setErrorCode(GroupErrors.of(t).code())
                      .setAssignment(new byte[0]))
          .thenApply(
              r -> {
                if (v < 5) {
                  // Fields of version 5 and later only.
                  r.setProtocolType(null).setProtocolName(null);
                }
                return Optional.of((ApiMessage) r);
              });
    };
  }

  /** Heartbeat. */
  public static ApiHandler heartbeat(GroupApis apis) {
    return request -> {
      HeartbeatRequestData d = ((HeartbeatRequest) request.body()).data();
      return apis.coordinator
          .load(apis.namespace(request), d.groupId())
          .thenApply(
              g -> {
                synchronized (g) {
                  return g.heartbeat(
                      d.memberId(), d.groupInstanceId(), d.generationId(), apis.coordinator.now());
                }
              })
          .exceptionally(GroupErrors::of)
          .thenApply(e -> Optional.of(new HeartbeatResponseData().setErrorCode(e.code())));
    };
  }

  /** LeaveGroup: one member (v0–2), or a list of members by id or instance id (v3+). */
  public static ApiHandler leave(GroupApis apis) {
    return request -> {
      LeaveGroupRequestData d = ((LeaveGroupRequest) request.body()).data();
      short v = request.version();
      return apis.coordinator
          .load(apis.namespace(request), d.groupId())
          .thenApply(
              g -> {
                LeaveGroupResponseData r = new LeaveGroupResponseData();
                synchronized (g) {
                  long now = apis.coordinator.now();
                  if (v < 3) {
                    r.setErrorCode(g.leave(d.memberId(), null, now).code());
                  } else {
                    d.members()
                        .forEach(
                            m ->
                                r.members()
                                    .add(
                                        new MemberResponse()
                                            .setMemberId(m.memberId())
                                            .setGroupInstanceId(m.groupInstanceId())
                                            .setErrorCode(
                                                g.leave(m.memberId(), m.groupInstanceId(), now)
                                                    .code())));
                  }
                }
                return r;
              })
          .exceptionally(t -> new LeaveGroupResponseData().setErrorCode(GroupErrors.of(t).code()))
          .thenApply(r -> Optional.of((ApiMessage) r));
    };
  }

  private static CompletableFuture<Optional<ApiMessage>> answer(JoinGroupResponseData r) {
    return ApiHandler.answer(r);
  }
}
