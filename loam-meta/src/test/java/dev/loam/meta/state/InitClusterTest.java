package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.RegisterNode;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The InitCluster rule (metastore-commands.md, tag 24): fenced, validated, first proposer wins. */
class InitClusterTest {
  static final long T = 1_780_000_000_000L;

  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
  private long index;

  private Outcome apply(dev.loam.meta.command.Command c) {
    return m.apply(++index, c);
  }

  private static Origin o(String node, long epoch) {
    return new Origin(node, epoch, T);
  }

  private static RejectReason reason(Outcome o) {
    assertThat(o).isInstanceOf(Outcome.Rejected.class);
    return ((Outcome.Rejected) o).reason();
  }

  @Test
  void theFirstValidProposalWinsAndEveryLaterOneGetsItBack() {
    apply(new RegisterNode(o("n1", 2), null, 1, null));
    apply(new RegisterNode(o("n2", 1), null, 1, null));
    assertThat(m.reader().clusterId()).isEmpty();
    assertThat(apply(new InitCluster(o("n1", 2), "A")))
        .isEqualTo(new Outcome.ClusterInitialized("A"));
    assertThat(apply(new InitCluster(o("n2", 1), "B")))
        .isEqualTo(new Outcome.ClusterInitialized("A"));
    // A retry of the winner is answered the same.
    assertThat(apply(new InitCluster(o("n1", 2), "A")))
        .isEqualTo(new Outcome.ClusterInitialized("A"));
    assertThat(m.reader().clusterId()).contains("A");
  }

  @Test
  void theProposerIsFencedLikeEveryNodeCommand() {
    assertThat(reason(apply(new InitCluster(o("n1", 1), "A"))))
        .isEqualTo(RejectReason.UNKNOWN_NODE);
    apply(new RegisterNode(o("n1", 2), null, 1, null));
    assertThat(reason(apply(new InitCluster(o("n1", 1), "A"))))
        .isEqualTo(RejectReason.STALE_NODE_EPOCH);
    assertThat(reason(apply(new InitCluster(o("n1", 3), "A"))))
        .isEqualTo(RejectReason.UNKNOWN_NODE);
    apply(new DeregisterNode(o("n1", 2)));
    assertThat(reason(apply(new InitCluster(o("n1", 2), "A"))))
        .isEqualTo(RejectReason.UNKNOWN_NODE);
    assertThat(m.reader().clusterId()).isEmpty();
    // Not owner-bound: it is about the cluster, not a stream.
    assertThat(OwnerFenced.ownerBound(new InitCluster(o("n1", 2), "A"))).isFalse();
  }

  @Test
  void anInvalidIdIsRefusedNamingItBeforeAndAfterTheIdIsSet() {
    apply(new RegisterNode(o("n1", 1), null, 1, null));
    String tooLong = "x".repeat(InitCluster.MAX_LENGTH + 1);
    for (String bad : Arrays.asList(null, "", tooLong, "a b", "a.b", "é", "a/b", "a\u0000")) {
      Outcome out = apply(new InitCluster(o("n1", 1), bad));
      assertThat(reason(out)).as("id %s", bad).isEqualTo(RejectReason.INVALID);
      assertThat(((Outcome.Rejected) out).message()).contains("node=n1").contains("clusterId=");
    }
    assertThat(m.reader().clusterId()).isEmpty();
    String longest = "A-_z09".repeat(10) + "Zz-_";
    assertThat(longest).hasSize(InitCluster.MAX_LENGTH);
    assertThat(apply(new InitCluster(o("n1", 1), longest)))
        .isEqualTo(new Outcome.ClusterInitialized(longest));
    // Still refused once an id is set: a proposer bug is not hidden behind the recorded id.
    assertThat(reason(apply(new InitCluster(o("n1", 1), "")))).isEqualTo(RejectReason.INVALID);
    assertThat(m.reader().clusterId()).contains(longest);
  }

  @Test
  void aHugeInvalidIdGivesASmallMessage() {
    apply(new RegisterNode(o("n1", 1), null, 1, null));
    Outcome out = apply(new InitCluster(o("n1", 1), "y".repeat(100_000)));
    String message = ((Outcome.Rejected) out).message();
    assertThat(message).contains("length=100000").hasSizeLessThan(300);
  }

  @Test
  void theValidityCheckMatchesTheSpec() {
    assertThat(InitCluster.isValidClusterId("01J0GXQ2E4KX9V0M3N5P6R8S9T")).isTrue();
    assertThat(InitCluster.isValidClusterId("a")).isTrue();
    assertThat(InitCluster.isValidClusterId("under_score-dash")).isTrue();
    assertThat(InitCluster.isValidClusterId(null)).isFalse();
    assertThat(InitCluster.isValidClusterId("")).isFalse();
    assertThat(InitCluster.isValidClusterId("Ä")).isFalse();
    assertThat(InitCluster.isValidClusterId("x".repeat(65))).isFalse();
  }
}
