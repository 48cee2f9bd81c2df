package dev.loam.meta.command;

/**
 * A metastore command: the only way state changes. Commands are plain values, encoded with {@code
 * CommandCodec} into the replicated log, and applied deterministically by {@code MetaStateMachine}.
 */
public sealed interface Command
    permits RegisterNode,
        PlaceJournal,
        AssignJournalPartition,
        MoveJournalPartition,
        CommitJournalSegment,
        CreateNamespace,
        DeleteNamespace,
        CreateStream,
        DeleteStream,
        CommitWal,
        CommitWalGroup,
        SwapSegment,
        TrimPartition,
        DeleteObjects,
        AllocateProducerIds,
        AcquireConsumerLease,
        CommitConsumerOffset,
        UpdateStreamConfig,
        AddPartitions,
        RenewNode,
        ExpireNode,
        DeregisterNode,
        SetNodeSlots,
        PlaceStream,
        OpenStream,
        CloseStream,
        TransferStream,
        OwnerFenced,
        InitCluster,
        SetNodeEndpoint,
        CreateApiKey,
        RevokeApiKey,
        AdvanceGroupGeneration,
        CommitGroupOffsets,
        DeleteGroupOffsets,
        ClaimEvents,
        CompleteEvents,
        ReleaseEvents,
        PruneEvents,
        AddNamespaceKey,
        DestroyNamespaceKeys,
        AcquireWriterLease,
        CreateArrowStream,
        AddStreamSchema {
  /** The proposing node, its epoch, and the proposer's clock at proposal time. */
  Origin origin();
}
