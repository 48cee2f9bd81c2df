package dev.loam.kafka.internal.group;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/** One member of a classic group, as its coordinator holds it. Guarded by its group's lock. */
final class Member {
  /** A protocol the member supports (an assignor name) with its subscription metadata. */
  record Protocol(String name, byte[] metadata) {}

  final String memberId;
  final String instanceId;
  final String clientId;
  final String clientHost;
  int sessionTimeoutMs;
  int rebalanceTimeoutMs;
  List<Protocol> protocols;
  byte[] assignment = new byte[0];
  long sessionDeadline;

  /** The JoinGroup waiting for the rebalance to complete, and the version it was sent at. */
  CompletableFuture<JoinGroupResponseData> pendingJoin;

  short joinVersion;

  /** The SyncGroup waiting for the leader's assignment. */
  CompletableFuture<SyncGroupResponseData> pendingSync;

  Member(String memberId, String instanceId, String clientId, String clientHost) {
    this.memberId = memberId;
    this.instanceId = instanceId;
    this.clientId = clientId;
    this.clientHost = clientHost;
  }

  /** The member's metadata for {@code protocol}, or null when it does not support it. */
  byte[] metadata(String protocol) {
    for (Protocol p : protocols) {
      if (p.name().equals(protocol)) {
        return p.metadata();
      }
    }
    return null;
  }

  /** Whether {@code other} lists the same protocols with the same metadata, in the same order. */
  boolean sameProtocols(List<Protocol> other) {
    if (other.size() != protocols.size()) {
      return false;
    }
    for (int i = 0; i < other.size(); i++) {
      Protocol a = protocols.get(i);
      Protocol b = other.get(i);
      if (!a.name().equals(b.name()) || !java.util.Arrays.equals(a.metadata(), b.metadata())) {
        return false;
      }
    }
    return true;
  }
}
