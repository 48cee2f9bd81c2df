package dev.loam.core.node;

import dev.loam.api.CommittedOffset;
import dev.loam.api.GroupCoordination;
import dev.loam.api.GroupDescription;
import dev.loam.api.GroupFencedException;
import dev.loam.api.NotOwnerException;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.core.ownership.OwnershipAgent;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.AdvanceGroupGeneration;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitGroupOffsets;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteGroupOffsets;
import dev.loam.meta.command.GroupInfo;
import dev.loam.meta.command.GroupOffset;
import dev.loam.meta.command.GroupPartition;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The consumer-group calls of {@link LogService} (docs/design/consumer-groups.md): the group's
 * coordinator is the owner of its coordinator stream, acquired through the ownership agent like any
 * owner-bound stream, and every group write travels in {@link OwnerFenced} with the epoch the
 * coordination was acquired at, so a coordinator that lost the group writes nothing.
 */
final class GroupService {
  private final NodeContext ctx;
  private final Metastore meta;
  private final OwnershipAgent ownership;

  GroupService(NodeContext ctx, OwnershipAgent ownership) {
    this.ctx = ctx;
    this.meta = ctx.meta();
    this.ownership = ownership;
  }

  CompletableFuture<GroupCoordination> acquire(String namespace, String group) {
    if (group == null || group.isEmpty() || group.length() > GroupInfo.MAX_GROUP_LENGTH) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "group id must be 1.."
                  + GroupInfo.MAX_GROUP_LENGTH
                  + " characters namespace="
                  + namespace
                  + " groupLength="
                  + (group == null ? 0 : group.length())));
    }
    if (!meta.read(r -> r.namespaceExists(namespace))) {
      return CompletableFuture.failedFuture(
          new LoamException(Kind.NOT_FOUND, "namespace not found namespace=" + namespace));
    }
    String name = GroupInfo.coordinatorStreamName(namespace, group);
    return coordinatorStream(name)
        .thenCompose(
            s ->
                ownership
                    .acquireOpen(s)
                    .thenApply(
                        epoch ->
                            new GroupCoordination(
                                namespace,
                                group,
                                s.id(),
                                epoch,
                                meta.read(r -> r.group(namespace, group))
                                    .map(GroupInfo::generation)
                                    .orElse(0))))
        .exceptionallyCompose(
            e -> {
              Throwable c = unwrap(e);
              if (c instanceof NotOwnerException n) {
                // Name the group, not only its internal stream, for the reader of the message.
                return CompletableFuture.failedFuture(
                    new NotOwnerException(
                        namespace,
                        n.stream(),
                        n.ownerNodeId(),
                        n.ownerAddress(),
                        "coordinator of group=" + group));
              }
              return CompletableFuture.failedFuture(c);
            });
  }

  /** The coordinator stream, created (with its namespace) when absent. */
  private CompletableFuture<StreamInfo> coordinatorStream(String name) {
    Optional<StreamInfo> s = meta.read(r -> r.stream(GroupInfo.COORDINATOR_NAMESPACE, name));
    if (s.isPresent()) {
      return CompletableFuture.completedFuture(s.get());
    }
    CompletableFuture<Void> ns =
        meta.read(r -> r.namespaceExists(GroupInfo.COORDINATOR_NAMESPACE))
            ? CompletableFuture.completedFuture(null)
            : proposeTolerating(new CreateNamespace(ctx.origin(), GroupInfo.COORDINATOR_NAMESPACE));
    return ns.thenCompose(
            v ->
                proposeTolerating(
                    new CreateStream(
                        ctx.origin(),
                        GroupInfo.COORDINATOR_NAMESPACE,
                        name,
                        StreamConfig.standard(1))))
        .thenApply(
            v ->
                meta.read(r -> r.stream(GroupInfo.COORDINATOR_NAMESPACE, name))
                    .orElseThrow(
                        () ->
                            new LoamException(
                                Kind.UNAVAILABLE,
                                "coordinator stream not visible yet stream="
                                    + GroupInfo.COORDINATOR_NAMESPACE
                                    + "/"
                                    + name)));
  }

  /** Proposes a create and waits for the local apply; a racing create that won is success. */
  private CompletableFuture<Void> proposeTolerating(Command c) {
    return meta.propose(c)
        .thenCompose(
            a -> {
              if (a.outcome() instanceof Outcome.Rejected r
                  && r.reason() != Outcome.RejectReason.ALREADY_EXISTS) {
                return CompletableFuture.failedFuture(Rejections.of(r, ""));
              }
              return meta.awaitApplied(a.index());
            });
  }

  CompletableFuture<Void> advanceGeneration(GroupCoordination c, int generation) {
    return proposeFenced(
        c,
        new AdvanceGroupGeneration(
            ctx.origin(), c.coordinatorStreamId(), c.namespace(), c.group(), generation));
  }

  CompletableFuture<Void> commit(GroupCoordination c, int generation, List<CommittedOffset> in) {
    List<GroupOffset> offsets = new ArrayList<>(in.size());
    try {
      for (CommittedOffset o : in) {
        StreamInfo s = resolve(c.namespace(), o.stream());
        offsets.add(
            new GroupOffset(s.id(), o.partition(), o.offset(), o.leaderEpoch(), o.metadata()));
      }
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return proposeFenced(
        c,
        new CommitGroupOffsets(
            ctx.origin(), c.coordinatorStreamId(), c.namespace(), c.group(), generation, offsets));
  }

  CompletableFuture<Void> delete(
      GroupCoordination c, boolean wholeGroup, List<CommittedOffset> partitions) {
    List<GroupPartition> parts = new ArrayList<>();
    for (CommittedOffset o : partitions) {
      meta.read(r -> r.stream(c.namespace(), o.stream()))
          .ifPresent(s -> parts.add(new GroupPartition(s.id(), o.partition())));
    }
    return proposeFenced(
        c,
        new DeleteGroupOffsets(
            ctx.origin(), c.coordinatorStreamId(), c.namespace(), c.group(), wholeGroup, parts));
  }

  Optional<GroupDescription> describe(String namespace, String group) {
    return meta.read(r -> r.group(namespace, group).map(g -> description(r, g)));
  }

  List<GroupDescription> list(String namespace) {
    return meta.read(r -> r.groups(namespace).stream().map(g -> description(r, g)).toList());
  }

  private static GroupDescription description(MetaReader r, GroupInfo g) {
    List<CommittedOffset> offsets = new ArrayList<>(g.offsets().size());
    for (GroupOffset o : g.offsets()) {
      // Offsets of a deleted stream are dropped with it, so every stream id resolves.
      r.streamById(o.streamId())
          .ifPresent(
              s ->
                  offsets.add(
                      new CommittedOffset(
                          s.name(), o.partition(), o.offset(), o.leaderEpoch(), o.metadata())));
    }
    String owner =
        r.ownership(g.coordinatorStreamId())
            .filter(o -> o.owned() && o.owner() != null)
            .map(o -> o.owner())
            .orElse("");
    return new GroupDescription(g.namespace(), g.group(), g.generation(), offsets, owner);
  }

  private StreamInfo resolve(String namespace, String stream) {
    return meta.read(r -> r.stream(namespace, stream))
        .orElseThrow(
            () ->
                new LoamException(
                    Kind.NOT_FOUND, "stream not found stream=" + namespace + "/" + stream));
  }

  /**
   * Proposes a group command at the coordination's epoch and waits for the local apply. A refusal
   * for the epoch is {@link NotOwnerException}; for the generation {@link GroupFencedException}.
   */
  private CompletableFuture<Void> proposeFenced(GroupCoordination c, Command inner) {
    String subject = "namespace=" + c.namespace() + " group=" + c.group();
    return meta.propose(new OwnerFenced(c.coordinatorStreamId(), c.coordinatorEpoch(), inner))
        .thenCompose(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                return CompletableFuture.failedFuture(
                    switch (r.reason()) {
                      case NOT_OWNER ->
                          new NotOwnerException(
                              c.namespace(),
                              GroupInfo.coordinatorStreamName(c.namespace(), c.group()),
                              "",
                              "",
                              "coordinator epoch "
                                  + c.coordinatorEpoch()
                                  + " lost "
                                  + subject
                                  + " "
                                  + r.message());
                      case FENCED -> new GroupFencedException(r.message() + " " + subject);
                      default -> Rejections.of(r, subject);
                    });
              }
              return meta.awaitApplied(a.index());
            });
  }

  private static Throwable unwrap(Throwable e) {
    while ((e instanceof java.util.concurrent.CompletionException
            || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
