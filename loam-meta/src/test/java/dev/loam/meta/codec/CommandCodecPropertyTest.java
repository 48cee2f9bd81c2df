package dev.loam.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import dev.loam.wal.DurabilityClass;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Round trip and truncation of the command and outcome formats (metastore-commands.md). */
class CommandCodecPropertyTest {

  @Property(tries = 500)
  void commandsRoundTrip(@ForAll("commands") Command c) {
    assertThat(CommandCodec.decode(CommandCodec.encode(c))).isEqualTo(c);
  }

  @Property(tries = 200)
  void everyCommandTruncationIsCorruption(@ForAll("commands") Command c) {
    byte[] bytes = CommandCodec.encode(c);
    for (int len = 0; len < bytes.length; len++) {
      byte[] cut = Arrays.copyOf(bytes, len);
      assertThatThrownBy(() -> CommandCodec.decode(cut))
          .as("length %d of %d", len, bytes.length)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("field=");
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> CommandCodec.decode(longer)).isInstanceOf(CorruptionException.class);
  }

  @Property(tries = 300)
  void outcomesRoundTripAndTruncationIsCorruption(@ForAll("outcomes") Outcome o) {
    byte[] bytes = OutcomeCodec.encode(o);
    assertThat(OutcomeCodec.decode(bytes)).isEqualTo(o);
    for (int len = 0; len < bytes.length; len++) {
      byte[] cut = Arrays.copyOf(bytes, len);
      assertThatThrownBy(() -> OutcomeCodec.decode(cut)).isInstanceOf(CorruptionException.class);
    }
  }

  @Property(tries = 300)
  void singleByteDamageNeverEscapesAsAnotherException(
      @ForAll("commands") Command c, @ForAll int position, @ForAll byte flip) {
    // Commands carry no checksum of their own (the log frame does); damage must still decode to
    // some command or fail as corruption, never as an unchecked bug.
    byte[] bytes = CommandCodec.encode(c);
    int at = Math.floorMod(position, bytes.length);
    bytes[at] ^= (flip == 0 ? 1 : flip);
    try {
      CommandCodec.decode(bytes);
    } catch (CorruptionException expected) {
      // fine
    }
  }

  @Example
  void unknownVersionAndTagNameTheField() {
    byte[] bytes = CommandCodec.encode(new CreateNamespace(new Origin("n", 1, 2), "x"));
    bytes[0] = 9;
    assertThatThrownBy(() -> CommandCodec.decode(bytes)).hasMessageContaining("field=version");
    bytes[0] = 1;
    bytes[1] = 99;
    assertThatThrownBy(() -> CommandCodec.decode(bytes)).hasMessageContaining("field=tag");
  }

  @Example
  void hugeCountsDoNotAllocate() {
    CommitWal c = new CommitWal(new Origin("n", 1, 2), "k", 3, 4, List.of());
    byte[] bytes = CommandCodec.encode(c);
    // The chunk count is the last field: claim 2^31-1 chunks.
    bytes[bytes.length - 4] = 0x7F;
    bytes[bytes.length - 3] = (byte) 0xFF;
    assertThatThrownBy(() -> CommandCodec.decode(bytes))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("field=commitWal.chunks.count");
  }

  // ---- generators

  static Arbitrary<String> text() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .withChars('.', '-', '_', '/', 'é', '中', ' ')
        .ofMaxLength(24);
  }

  static Arbitrary<Origin> origins() {
    return Combinators.combine(text(), Arbitraries.longs(), Arbitraries.longs()).as(Origin::new);
  }

  static Arbitrary<StreamConfig> configs() {
    return Combinators.combine(
            Arbitraries.integers(),
            Arbitraries.of(DurabilityClass.class),
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.of(StreamConfig.CleanupPolicy.class),
            Arbitraries.of(dev.loam.wal.batch.Compression.class))
        .as(StreamConfig::new);
  }

  static Arbitrary<BatchCommit> batches() {
    Arbitrary<BatchCommit> plain =
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.shorts(),
                Arbitraries.integers())
            .as(BatchCommit::new);
    // Some batches fenced: a commit holding one is encoded as tag 42 (43 in a group).
    return Combinators.combine(plain, fences().injectNull(0.7))
        .as(
            (b, f) ->
                new BatchCommit(
                    b.byteOffset(),
                    b.byteLength(),
                    b.recordCount(),
                    b.maxTimestamp(),
                    b.producerId(),
                    b.producerEpoch(),
                    b.baseSequence(),
                    f));
  }

  static Arbitrary<dev.loam.meta.command.CommitWal.Fence> fences() {
    return Combinators.combine(
            text(), Arbitraries.longs(), Arbitraries.longs(), Arbitraries.longs())
        .as(dev.loam.meta.command.CommitWal.Fence::new);
  }

  static Arbitrary<dev.loam.meta.command.WriterLease> writerLeases() {
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.integers(),
            text(),
            Arbitraries.longs(),
            text(),
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.longs())
        .as(dev.loam.meta.command.WriterLease::new);
  }

  static Arbitrary<ChunkCommit> chunks() {
    return Combinators.combine(
            Arbitraries.longs(), Arbitraries.integers(), batches().list().ofMaxSize(4))
        .as(ChunkCommit::new);
  }

  @Provide
  Arbitrary<Command> commands() {
    Arbitrary<Command> register =
        Combinators.combine(
                origins(), text().injectNull(0.2), Arbitraries.integers(), text().injectNull(0.2))
            .as(RegisterNode::new);
    Arbitrary<Command> createNs = Combinators.combine(origins(), text()).as(CreateNamespace::new);
    Arbitrary<Command> deleteNs = Combinators.combine(origins(), text()).as(DeleteNamespace::new);
    Arbitrary<Command> createStream =
        Combinators.combine(origins(), text(), text(), configs()).as(CreateStream::new);
    Arbitrary<Command> deleteStream =
        Combinators.combine(origins(), text(), text()).as(DeleteStream::new);
    Arbitrary<Command> commit =
        Combinators.combine(
                origins(),
                text(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                chunks().list().ofMaxSize(4))
            .as(CommitWal::new);
    Arbitrary<Command> walGroup =
        origins()
            .flatMap(
                o ->
                    Combinators.combine(
                            text(),
                            Arbitraries.longs(),
                            Arbitraries.longs(),
                            chunks().list().ofMaxSize(3))
                        .as((k, t, z, cs) -> new CommitWal(o, k, t, z, cs))
                        .list()
                        .ofMaxSize(4)
                        .map(ms -> (Command) new dev.loam.meta.command.CommitWalGroup(o, ms)));
    Arbitrary<dev.loam.meta.command.IndexEntry> entry =
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                text(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs())
            .as(dev.loam.meta.command.IndexEntry::new);
    Arbitrary<dev.loam.meta.command.SwapSegment.SegmentEntry> segEntry =
        Combinators.combine(
                Arbitraries.integers(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs())
            .as(dev.loam.meta.command.SwapSegment.SegmentEntry::new);
    Arbitrary<Command> swap =
        Combinators.combine(
                Combinators.combine(
                        origins(),
                        Arbitraries.longs(),
                        Arbitraries.integers(),
                        Arbitraries.longs(),
                        Arbitraries.longs())
                    .as(List::<Object>of),
                entry.list().ofMaxSize(3),
                text(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                segEntry.list().ofMaxSize(3))
            .as(
                (h, ex, key, time, size, es) ->
                    new dev.loam.meta.command.SwapSegment(
                        (Origin) h.get(0),
                        (Long) h.get(1),
                        (Integer) h.get(2),
                        (Long) h.get(3),
                        (Long) h.get(4),
                        ex,
                        key,
                        time,
                        size,
                        es));
    Arbitrary<Command> trim =
        Combinators.combine(
                origins(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs(),
                Arbitraries.of(dev.loam.meta.command.TrimPartition.Reason.class))
            .as(dev.loam.meta.command.TrimPartition::new);
    Arbitrary<Command> deleteObjects =
        Combinators.combine(origins(), text().list().ofMaxSize(4))
            .as(dev.loam.meta.command.DeleteObjects::new);
    Arbitrary<Command> allocate =
        Combinators.combine(origins(), Arbitraries.integers())
            .as(dev.loam.meta.command.AllocateProducerIds::new);
    Arbitrary<Command> acquire =
        Combinators.combine(
                origins(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                text(),
                text(),
                Arbitraries.longs())
            .as(dev.loam.meta.command.AcquireConsumerLease::new);
    Arbitrary<Command> commitOffset =
        Combinators.combine(
                origins(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                text(),
                Arbitraries.longs(),
                Arbitraries.longs())
            .as(dev.loam.meta.command.CommitConsumerOffset::new);
    Arbitrary<Command> update =
        Combinators.combine(
                origins(),
                text(),
                text(),
                Arbitraries.longs().injectNull(0.3),
                Arbitraries.longs().injectNull(0.3),
                Arbitraries.of(StreamConfig.CleanupPolicy.class).injectNull(0.3))
            .as(dev.loam.meta.command.UpdateStreamConfig::new);
    Arbitrary<Command> addPartitions =
        Combinators.combine(origins(), text(), text(), Arbitraries.integers())
            .as(dev.loam.meta.command.AddPartitions::new);
    Arbitrary<Long> ids = Arbitraries.longs();
    Arbitrary<Command> renew = origins().map(dev.loam.meta.command.RenewNode::new);
    Arbitrary<Command> expire =
        Combinators.combine(origins(), text(), ids, ids).as(dev.loam.meta.command.ExpireNode::new);
    Arbitrary<Command> deregister = origins().map(dev.loam.meta.command.DeregisterNode::new);
    Arbitrary<Command> slots =
        Combinators.combine(origins(), text(), Arbitraries.integers())
            .as(dev.loam.meta.command.SetNodeSlots::new);
    Arbitrary<Command> place =
        Combinators.combine(origins(), ids).as(dev.loam.meta.command.PlaceStream::new);
    Arbitrary<Command> open =
        Combinators.combine(origins(), ids).as(dev.loam.meta.command.OpenStream::new);
    Arbitrary<Command> close =
        Combinators.combine(origins(), ids, ids).as(dev.loam.meta.command.CloseStream::new);
    Arbitrary<Command> transfer =
        Combinators.combine(origins(), ids, ids, text())
            .as(dev.loam.meta.command.TransferStream::new);
    // Group commands: any ids, generations and strings; the state machine refuses the bad ones.
    Arbitrary<dev.loam.meta.command.GroupOffset> groupOffset =
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                text())
            .as(dev.loam.meta.command.GroupOffset::new);
    Arbitrary<Command> advanceGroup =
        Combinators.combine(origins(), ids, text(), text(), Arbitraries.integers())
            .as(dev.loam.meta.command.AdvanceGroupGeneration::new);
    Arbitrary<Command> commitGroup =
        Combinators.combine(
                origins(),
                ids,
                text(),
                text(),
                Arbitraries.integers(),
                groupOffset.list().ofMaxSize(4))
            .as(dev.loam.meta.command.CommitGroupOffsets::new);
    Arbitrary<Command> deleteGroup =
        Combinators.combine(
                origins(),
                ids,
                text(),
                text(),
                Arbitraries.of(true, false),
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers())
                    .as(dev.loam.meta.command.GroupPartition::new)
                    .list()
                    .ofMaxSize(4))
            .as(dev.loam.meta.command.DeleteGroupOffsets::new);
    Arbitrary<Command> fenced =
        Combinators.combine(
                ids,
                ids,
                Arbitraries.oneOf(
                    List.of(
                        update,
                        addPartitions,
                        acquire,
                        swap,
                        trim,
                        advanceGroup,
                        commitGroup,
                        deleteGroup)))
            .as(dev.loam.meta.command.OwnerFenced::new);
    // Any string, valid or not: the codec carries what the state machine refuses.
    Arbitrary<Command> initCluster =
        Combinators.combine(origins(), text()).as(dev.loam.meta.command.InitCluster::new);
    // Likewise any name and address, the empty address (a removal) included.
    Arbitrary<Command> setEndpoint =
        Combinators.combine(origins(), text(), text())
            .as(dev.loam.meta.command.SetNodeEndpoint::new);
    // Any id, scope, role set and array lengths: the state machine refuses the bad ones.
    Arbitrary<Command> createKey =
        Combinators.combine(origins(), text(), text().injectNull(0.3), roleSets(), secrets())
            .as(dev.loam.meta.command.CreateApiKey::new);
    Arbitrary<Command> revokeKey =
        Combinators.combine(origins(), text()).as(dev.loam.meta.command.RevokeApiKey::new);
    Arbitrary<dev.loam.meta.command.EventKey> eventKey =
        Arbitraries.bytes()
            .array(byte[].class)
            .ofSize(dev.loam.meta.command.EventKey.LENGTH)
            .map(dev.loam.meta.command.EventKey::new);
    Arbitrary<Command> claimEvents =
        Combinators.combine(origins(), ids, Arbitraries.longs(), eventKey.list().ofMaxSize(4))
            .as(dev.loam.meta.command.ClaimEvents::new);
    Arbitrary<Command> completeEvents =
        Combinators.combine(
                origins(),
                ids,
                Arbitraries.longs(),
                Arbitraries.longs(),
                Combinators.combine(eventKey, Arbitraries.integers(), Arbitraries.longs())
                    .as(dev.loam.meta.command.CompletedEvent::new)
                    .list()
                    .ofMaxSize(4))
            .as(dev.loam.meta.command.CompleteEvents::new);
    Arbitrary<Command> releaseEvents =
        Combinators.combine(origins(), ids, Arbitraries.longs(), eventKey.list().ofMaxSize(4))
            .as(dev.loam.meta.command.ReleaseEvents::new);
    Arbitrary<Command> pruneEvents =
        Combinators.combine(origins(), Arbitraries.integers())
            .as(dev.loam.meta.command.PruneEvents::new);
    Arbitrary<Command> acquireWriter =
        Combinators.combine(
                origins(), ids, Arbitraries.integers(), text(), text(), Arbitraries.longs())
            .as(dev.loam.meta.command.AcquireWriterLease::new);
    // Any names, config, count and text: the state machine refuses the bad ones.
    Arbitrary<Command> createArrow =
        Combinators.combine(origins(), text(), text(), configs(), text())
            .as(dev.loam.meta.command.CreateArrowStream::new);
    Arbitrary<Command> addSchema =
        Combinators.combine(origins(), text(), text(), Arbitraries.integers(), text())
            .as(dev.loam.meta.command.AddStreamSchema::new);
    Arbitrary<Command> placeJournal =
        Combinators.combine(origins(), text(), Arbitraries.integers().between(1, 9))
            .as(dev.loam.meta.command.PlaceJournal::new);
    Arbitrary<Command> assignJournal =
        Combinators.combine(origins(), Arbitraries.longs(), Arbitraries.integers())
            .as(dev.loam.meta.command.AssignJournalPartition::new);
    Arbitrary<Command> assignJournalSpread =
        Combinators.combine(
                origins(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Combinators.combine(
                        text(),
                        Arbitraries.integers().between(1, 9),
                        text(),
                        text().injectNull(0.3))
                    .as(dev.loam.meta.command.AssignJournalPartition.Spread::new))
            .as(dev.loam.meta.command.AssignJournalPartition::new);
    Arbitrary<Command> moveJournalPartition =
        Combinators.combine(
                origins(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                text(),
                text(),
                Arbitraries.longs().greaterOrEqual(-1))
            .as(dev.loam.meta.command.MoveJournalPartition::new);
    Arbitrary<Command> placeJournalWithEndpoint =
        Combinators.combine(origins(), text(), Arbitraries.integers().between(1, 9), text())
            .as(dev.loam.meta.command.PlaceJournal::new);
    Arbitrary<dev.loam.meta.command.SwapSegment.SegmentEntry> journalSegEntry =
        Combinators.combine(
                Arbitraries.integers(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs())
            .as(dev.loam.meta.command.SwapSegment.SegmentEntry::new);
    Arbitrary<Command> commitJournalSegment =
        Combinators.combine(
                Combinators.combine(
                        origins(),
                        text(),
                        Arbitraries.longs(),
                        Arbitraries.integers(),
                        Arbitraries.longs(),
                        Arbitraries.longs())
                    .as(List::<Object>of),
                text(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                journalSegEntry.list().ofMaxSize(3))
            .as(
                (h, key, time, size, es) ->
                    new dev.loam.meta.command.CommitJournalSegment(
                        (Origin) h.get(0),
                        (String) h.get(1),
                        (Long) h.get(2),
                        (Integer) h.get(3),
                        (Long) h.get(4),
                        (Long) h.get(5),
                        key,
                        time,
                        size,
                        es));
    return Arbitraries.oneOf(
        List.of(
            acquireWriter,
            createArrow,
            addSchema,
            placeJournal,
            assignJournal,
            assignJournalSpread,
            moveJournalPartition,
            placeJournalWithEndpoint,
            commitJournalSegment,
            claimEvents,
            completeEvents,
            releaseEvents,
            pruneEvents,
            advanceGroup,
            commitGroup,
            deleteGroup,
            createKey,
            revokeKey,
            setEndpoint,
            initCluster,
            renew,
            expire,
            deregister,
            slots,
            place,
            open,
            close,
            transfer,
            fenced,
            update,
            addPartitions,
            allocate,
            acquire,
            commitOffset,
            register,
            createNs,
            deleteNs,
            createStream,
            deleteStream,
            commit,
            walGroup,
            swap,
            trim,
            deleteObjects));
  }

  static Arbitrary<java.util.Set<dev.loam.meta.command.ApiKeyRole>> roleSets() {
    return Arbitraries.of(dev.loam.meta.command.ApiKeyRole.class).set().ofMaxSize(4);
  }

  static Arbitrary<dev.loam.meta.command.ScramSecrets> secrets() {
    Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(70);
    return Combinators.combine(bytes, Arbitraries.integers(), bytes, bytes, bytes, bytes)
        .as(dev.loam.meta.command.ScramSecrets::new);
  }

  @Provide
  Arbitrary<Outcome> outcomes() {
    Arbitrary<Outcome> rejected =
        Combinators.combine(Arbitraries.of(Outcome.RejectReason.class), text().injectNull(0.1))
            .as(Outcome.Rejected::new);
    Arbitrary<Outcome> node =
        Combinators.combine(
                text(),
                Arbitraries.longs(),
                text().injectNull(0.2),
                Arbitraries.integers(),
                text().injectNull(0.2))
            .as((a, b, c, d, e) -> new Outcome.NodeRegistered(new NodeInfo(a, b, c, d, e)));
    // With endpoints (outcome tag 18) as well as without (tag 2).
    Arbitrary<Map<String, String>> endpoints =
        Arbitraries.maps(text(), text()).ofMinSize(1).ofMaxSize(4);
    Arbitrary<Outcome> nodeWithEndpoints =
        Combinators.combine(node, endpoints)
            .as(
                (o, e) ->
                    new Outcome.NodeRegistered(
                        ((Outcome.NodeRegistered) o).node().withEndpoints(new TreeMap<>(e))));
    Arbitrary<Outcome> ns = text().map(Outcome.NamespaceCreated::new);
    Arbitrary<Outcome> stream =
        Combinators.combine(Arbitraries.longs(), text(), text(), configs())
            .as((a, b, c, d) -> new Outcome.StreamCreated(new StreamInfo(a, b, c, d)));
    Arbitrary<Outcome> deleted = text().map(Outcome.Deleted::new);
    Arbitrary<BatchResult> result =
        Combinators.combine(Arbitraries.of(Outcome.BatchStatus.class), Arbitraries.longs())
            .as(BatchResult::new);
    Arbitrary<Outcome> committed =
        Combinators.combine(
                Arbitraries.of(true, false), result.list().ofMaxSize(4).list().ofMaxSize(4))
            .as(Outcome.WalCommitted::new);
    Arbitrary<Outcome> groupCommitted =
        Arbitraries.oneOf(committed, rejected)
            .list()
            .ofMaxSize(4)
            .map(Outcome.WalGroupCommitted::new);
    Arbitrary<Outcome> swapped =
        Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers())
            .as(Outcome.SegmentSwapped::new);
    Arbitrary<Outcome> trimmed =
        Combinators.combine(Arbitraries.longs(), Arbitraries.integers()).as(Outcome.Trimmed::new);
    Arbitrary<Outcome> objectsDeleted = Arbitraries.integers().map(Outcome.ObjectsDeleted::new);
    Arbitrary<Outcome> allocated =
        Combinators.combine(Arbitraries.longs(), Arbitraries.integers())
            .as(Outcome.ProducerIdsAllocated::new);
    Arbitrary<dev.loam.meta.command.ConsumerLease> lease =
        Combinators.combine(
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), text())
                    .as(List::<Object>of),
                Arbitraries.longs(),
                text(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.longs())
            .as(
                (h, gen, holder, leaseMs, expires, offset) ->
                    new dev.loam.meta.command.ConsumerLease(
                        (Long) h.get(0),
                        (Integer) h.get(1),
                        (String) h.get(2),
                        gen,
                        holder,
                        leaseMs,
                        expires,
                        offset));
    Arbitrary<Outcome> granted = lease.map(Outcome.ConsumerLeaseGranted::new);
    Arbitrary<Outcome> writerGranted = writerLeases().map(Outcome.WriterLeaseGranted::new);
    Arbitrary<Outcome> offsetCommitted = lease.map(Outcome.ConsumerOffsetCommitted::new);
    Arbitrary<StreamInfo> info =
        Combinators.combine(Arbitraries.longs(), text(), text(), configs()).as(StreamInfo::new);
    Arbitrary<Outcome> configUpdated = info.map(Outcome.StreamConfigUpdated::new);
    Arbitrary<Outcome> partitionsAdded =
        Combinators.combine(info, Arbitraries.integers()).as(Outcome.PartitionsAdded::new);
    Arbitrary<Outcome> nodeStatus =
        Combinators.combine(
                text(),
                Arbitraries.longs(),
                Arbitraries.of(true, false),
                Arbitraries.longs(),
                Arbitraries.of(true, false),
                Arbitraries.integers())
            .as(
                (id, epoch, live, at, changed, closed) ->
                    new Outcome.NodeStatusChanged(
                        new dev.loam.meta.command.NodeStatus(id, epoch, live, at),
                        changed,
                        closed));
    Arbitrary<dev.loam.meta.command.StreamOwnership> ownership =
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.of(dev.loam.meta.command.StreamOwnership.State.class),
                text(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                text().injectNull(0.5))
            .as(
                (id, state, owner, ownerEpoch, epoch, target) -> {
                  boolean owned =
                      state == dev.loam.meta.command.StreamOwnership.State.PLACED
                          || state == dev.loam.meta.command.StreamOwnership.State.OPEN;
                  boolean open = state == dev.loam.meta.command.StreamOwnership.State.OPEN;
                  return new dev.loam.meta.command.StreamOwnership(
                      id, state, owned ? owner : null, ownerEpoch, epoch, open ? target : null);
                });
    Arbitrary<Outcome> ownershipChanged =
        Combinators.combine(ownership, Arbitraries.of(true, false))
            .as(Outcome.OwnershipChanged::new);
    Arbitrary<Outcome> clusterInitialized = text().map(Outcome.ClusterInitialized::new);
    Arbitrary<dev.loam.meta.command.ApiKeyInfo> key =
        Combinators.combine(
                text(),
                text().injectNull(0.3),
                roleSets(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                secrets())
            .as(dev.loam.meta.command.ApiKeyInfo::new);
    Arbitrary<Outcome> keyCreated = key.map(Outcome.ApiKeyCreated::new);
    Arbitrary<Outcome> keyRevoked =
        Combinators.combine(key, Arbitraries.of(true, false)).as(Outcome.ApiKeyRevoked::new);
    Arbitrary<Outcome> groupChanged =
        Combinators.combine(text(), text(), Arbitraries.integers(), Arbitraries.integers())
            .as(Outcome.GroupChanged::new);
    Arbitrary<Outcome.EventClaim> claim =
        Arbitraries.oneOf(
            Arbitraries.just(Outcome.EventClaim.claimed()),
            Combinators.combine(Arbitraries.integers(), Arbitraries.longs())
                .as(Outcome.EventClaim::duplicate),
            Arbitraries.longs().map(Outcome.EventClaim::inFlight));
    Arbitrary<Outcome> eventsClaimed =
        Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), claim.list().ofMaxSize(5))
            .as(Outcome.EventsClaimed::new);
    Arbitrary<Outcome> eventsCompleted =
        Combinators.combine(Arbitraries.integers(), Arbitraries.integers())
            .as(Outcome.EventsCompleted::new);
    Arbitrary<Outcome> eventsRemoved = Arbitraries.integers().map(Outcome.EventsRemoved::new);
    // Version 1 is never an added one: the codec refuses it.
    Arbitrary<Outcome> schemaAdded =
        Combinators.combine(Arbitraries.longs(), Arbitraries.integers().greaterOrEqual(2))
            .as(Outcome.SchemaAdded::new);
    Arbitrary<Outcome> journalPlaced =
        Combinators.combine(
                text(), text().list().ofMinSize(1).ofMaxSize(9), Arbitraries.of(true, false))
            .as(Outcome.JournalPlaced::new);
    return Arbitraries.oneOf(
        List.of(
            schemaAdded,
            journalPlaced,
            eventsClaimed,
            eventsCompleted,
            eventsRemoved,
            groupChanged,
            keyCreated,
            keyRevoked,
            clusterInitialized,
            nodeStatus,
            ownershipChanged,
            configUpdated,
            partitionsAdded,
            rejected,
            node,
            nodeWithEndpoints,
            ns,
            stream,
            deleted,
            committed,
            groupCommitted,
            swapped,
            trimmed,
            objectsDeleted,
            allocated,
            granted,
            writerGranted,
            offsetCommitted));
  }
}
