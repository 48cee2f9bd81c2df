package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AddStreamSchema;
import dev.loam.meta.command.CreateArrowStream;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The arrow stream schema rules: create with version 1, add versions only against the count the
 * proposer saw, refuse kafka streams and bad texts, drop with the stream, and the v12 snapshot.
 */
class SchemaTableTest {
  private MetaStateMachine m;
  private long index;
  private final Origin o = new Origin("n1", 1, 1_000_000);

  private Outcome apply(dev.loam.meta.command.Command c) {
    return m.apply(++index, c);
  }

  @BeforeEach
  void setUp() {
    m = new MetaStateMachine(MetaSettings.defaults());
    apply(new RegisterNode(o, null, 1, null));
  }

  private static RejectReason reason(Outcome out) {
    assertThat(out).isInstanceOf(Outcome.Rejected.class);
    return ((Outcome.Rejected) out).reason();
  }

  @Test
  void createsAnArrowStreamWithVersionOneAndAddsVersions() {
    Outcome created =
        apply(new CreateArrowStream(o, "default", "a", StreamConfig.standard(2), "{\"v\":1}"));
    long id = ((Outcome.StreamCreated) created).stream().id();
    assertThat(m.reader().streamSchemas(id)).containsExactly("{\"v\":1}");
    assertThat(apply(new AddStreamSchema(o, "default", "a", 1, "{\"v\":2}")))
        .isEqualTo(new Outcome.SchemaAdded(id, 2));
    // A proposer that checked against version 1 lost the race: CONFLICT, nothing added.
    assertThat(reason(apply(new AddStreamSchema(o, "default", "a", 1, "{\"v\":3}"))))
        .isEqualTo(RejectReason.CONFLICT);
    assertThat(m.reader().streamSchemas(id)).containsExactly("{\"v\":1}", "{\"v\":2}");
    // The same name again is refused as for any stream.
    assertThat(
            reason(apply(new CreateArrowStream(o, "default", "a", StreamConfig.standard(1), "{}"))))
        .isEqualTo(RejectReason.ALREADY_EXISTS);
  }

  @Test
  void refusesKafkaStreamsMissingStreamsAndBadTexts() {
    apply(new CreateStream(o, "default", "k", StreamConfig.standard(1)));
    assertThat(reason(apply(new AddStreamSchema(o, "default", "k", 0, "{}"))))
        .isEqualTo(RejectReason.INVALID);
    assertThat(reason(apply(new AddStreamSchema(o, "default", "nope", 1, "{}"))))
        .isEqualTo(RejectReason.NOT_FOUND);
    assertThat(
            reason(apply(new CreateArrowStream(o, "default", "e", StreamConfig.standard(1), ""))))
        .isEqualTo(RejectReason.INVALID);
    String huge = "x".repeat(SchemaTable.MAX_SCHEMA_CHARS + 1);
    assertThat(
            reason(apply(new CreateArrowStream(o, "default", "e", StreamConfig.standard(1), huge))))
        .isEqualTo(RejectReason.INVALID);
    assertThat(m.reader().stream("default", "e")).isEmpty();
  }

  @Test
  void deletingTheStreamDropsItsSchemasAndTheSnapshotKeepsThem() {
    apply(new CreateArrowStream(o, "default", "a", StreamConfig.standard(1), "{\"v\":1}"));
    apply(new CreateArrowStream(o, "default", "b", StreamConfig.standard(1), "{\"w\":1}"));
    apply(new AddStreamSchema(o, "default", "b", 1, "{\"w\":2}"));
    long a = m.reader().stream("default", "a").orElseThrow().id();
    long b = m.reader().stream("default", "b").orElseThrow().id();
    apply(new DeleteStream(o, "default", "a"));
    assertThat(m.reader().streamSchemas(a)).isEmpty();
    byte[] snap = m.snapshot();
    assertThat(SnapshotFormat.versionFor(m)).isEqualTo(12);
    MetaStateMachine restored = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(restored.reader().streamSchemas(b)).containsExactly("{\"w\":1}", "{\"w\":2}");
    assertThat(restored.snapshot()).isEqualTo(snap);
    apply(new DeleteStream(o, "default", "b"));
    assertThat(SnapshotFormat.versionFor(m)).isLessThan(12);
  }
}
