package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ApiKeyRole;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.command.ScramSecrets;
import dev.loam.meta.command.SetNodeEndpoint;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The API key rules on the state machine itself: validation, idempotent create and revoke, the
 * creation and revocation times from the metastore clock, and the version 7 snapshot section
 * (written exactly while a key exists, restored exactly, corruption refused).
 */
class ApiKeyTableTest {
  static final long T = SnapshotV2Test.T;
  static final String ID = "abcdefghijklmnop";

  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());

  /** Well-formed secrets whose bytes are all {@code fill}. */
  static ScramSecrets secrets(byte fill) {
    byte[] salt = new byte[ScramSecrets.SALT_BYTES];
    byte[] k32 = new byte[ScramSecrets.SHA256_BYTES];
    byte[] k64 = new byte[ScramSecrets.SHA512_BYTES];
    Arrays.fill(salt, fill);
    Arrays.fill(k32, fill);
    Arrays.fill(k64, fill);
    return new ScramSecrets(salt, ScramSecrets.MIN_ITERATIONS, k32, k32, k64, k64);
  }

  private Outcome apply(Command c) {
    return m.apply(m.appliedIndex() + 1, c);
  }

  private Origin at(long offset) {
    return new Origin("n1", 1, T + offset);
  }

  private Outcome create(String id, String scope, Set<ApiKeyRole> roles, ScramSecrets s) {
    return apply(new CreateApiKey(at(10), id, scope, roles, s));
  }

  private static void rejected(Outcome o, RejectReason reason, String containing) {
    assertThat(o).as("%s", o).isInstanceOf(Outcome.Rejected.class);
    Outcome.Rejected r = (Outcome.Rejected) o;
    assertThat(r.reason()).as(r.message()).isEqualTo(reason);
    assertThat(r.message()).contains(containing);
  }

  private void register() {
    apply(new RegisterNode(at(0), null, 1, null));
  }

  @Test
  void createStoresTheKeyWithTheMetastoreClockAndARetryAnswersTheSameKey() {
    register();
    Outcome o = create(ID, "team-a", EnumSet.of(ApiKeyRole.PRODUCE), secrets((byte) 1));
    ApiKeyInfo k = ((Outcome.ApiKeyCreated) o).key();
    assertThat(k.id()).isEqualTo(ID);
    assertThat(k.scope()).isEqualTo("team-a");
    assertThat(k.roles()).containsExactly(ApiKeyRole.PRODUCE);
    assertThat(k.createdAtMillis()).isEqualTo(T + 10);
    assertThat(k.revoked()).isFalse();
    assertThat(m.reader().apiKey(ID)).contains(k);

    // The same command later is a retry: the key as first created, unchanged.
    Outcome again =
        apply(
            new CreateApiKey(
                at(500), ID, "team-a", EnumSet.of(ApiKeyRole.PRODUCE), secrets((byte) 1)));
    assertThat(again).isEqualTo(new Outcome.ApiKeyCreated(k));
    // Another key under the same id is refused.
    rejected(
        create(ID, "team-a", EnumSet.of(ApiKeyRole.PRODUCE), secrets((byte) 2)),
        RejectReason.ALREADY_EXISTS,
        "key=" + ID);
    rejected(
        create(ID, null, EnumSet.of(ApiKeyRole.PRODUCE), secrets((byte) 1)),
        RejectReason.ALREADY_EXISTS,
        "key=" + ID);
    assertThat(m.reader().apiKeys()).containsExactly(k);
  }

  @Test
  void badIdsScopesRolesAndSecretsAreRefusedInvalid() {
    register();
    Set<ApiKeyRole> produce = EnumSet.of(ApiKeyRole.PRODUCE);
    for (String bad :
        Arrays.asList(null, "", "short", "ABCDEFGHIJKLMNOP", "abcdefghijklmno1", ID + "q")) {
      rejected(create(bad, null, produce, secrets((byte) 1)), RejectReason.INVALID, "id must be");
    }
    rejected(create(ID, "no spaces", produce, secrets((byte) 1)), RejectReason.INVALID, "scope");
    rejected(create(ID, null, Set.of(), secrets((byte) 1)), RejectReason.INVALID, "one role");
    rejected(
        create(ID, "team-a", EnumSet.of(ApiKeyRole.CLUSTER_ADMIN), secrets((byte) 1)),
        RejectReason.INVALID,
        "cluster-wide");
    byte[] k32 = new byte[32];
    byte[] k64 = new byte[64];
    for (ScramSecrets bad :
        new ScramSecrets[] {
          new ScramSecrets(new byte[15], 4096, k32, k32, k64, k64),
          new ScramSecrets(new byte[16], 4095, k32, k32, k64, k64),
          new ScramSecrets(new byte[16], 1_000_001, k32, k32, k64, k64),
          new ScramSecrets(new byte[16], 4096, k64, k32, k64, k64),
          new ScramSecrets(new byte[16], 4096, k32, k32, k32, k64),
        }) {
      rejected(create(ID, null, produce, bad), RejectReason.INVALID, "secrets");
    }
    assertThat(m.reader().apiKeys()).isEmpty();
  }

  @Test
  void revokeKeepsTheKeyListedWithItsTimeAndIsIdempotent() {
    register();
    create(ID, null, EnumSet.of(ApiKeyRole.CLUSTER_ADMIN), secrets((byte) 1));
    Outcome o = apply(new RevokeApiKey(at(700), ID));
    Outcome.ApiKeyRevoked r = (Outcome.ApiKeyRevoked) o;
    assertThat(r.changed()).isTrue();
    assertThat(r.key().revoked()).isTrue();
    assertThat(r.key().revokedAtMillis()).isEqualTo(T + 700);
    Outcome again = apply(new RevokeApiKey(at(900), ID));
    assertThat(again).isEqualTo(new Outcome.ApiKeyRevoked(r.key(), false));
    assertThat(m.reader().apiKey(ID)).contains(r.key());
    rejected(apply(new RevokeApiKey(at(900), "zzzzzzzzzzzzzzzz")), RejectReason.NOT_FOUND, "key=");
    // A zombie proposer is fenced like for every command.
    rejected(
        apply(new RevokeApiKey(new Origin("n1", 0, T + 950), ID)),
        RejectReason.STALE_NODE_EPOCH,
        "");
  }

  @Test
  void snapshotIsVersion7ExactlyWhileAKeyExistsAndRestoresExactly() {
    register();
    byte[] before = m.snapshot();
    assertThat(version(before)).isEqualTo((short) 1);
    create(ID, "team-a", EnumSet.of(ApiKeyRole.PRODUCE, ApiKeyRole.CONSUME), secrets((byte) 3));
    create("qrstuvwxyz234567", null, EnumSet.allOf(ApiKeyRole.class), secrets((byte) 4));
    apply(new RevokeApiKey(at(20), ID));
    byte[] v7 = m.snapshot();
    assertThat(version(v7)).isEqualTo((short) 7);
    MetaStateMachine restored = MetaStateMachine.restore(v7, MetaSettings.defaults());
    assertThat(restored.reader().apiKeys()).isEqualTo(m.reader().apiKeys());
    assertThat(restored.snapshot()).isEqualTo(v7);

    // With an endpoint too (its section then non-empty) and after it is removed (empty, allowed
    // in version 7 only).
    apply(new SetNodeEndpoint(at(30), "kafka", "h:9092"));
    byte[] withEndpoint = m.snapshot();
    assertThat(version(withEndpoint)).isEqualTo((short) 7);
    assertThat(MetaStateMachine.restore(withEndpoint, MetaSettings.defaults()).snapshot())
        .isEqualTo(withEndpoint);
    apply(new SetNodeEndpoint(at(40), "kafka", ""));
    byte[] noEndpoint = m.snapshot();
    assertThat(MetaStateMachine.restore(noEndpoint, MetaSettings.defaults()).snapshot())
        .isEqualTo(noEndpoint);

    // Every single-byte corruption of the v7 body is refused (the CRC), and so is each truncation.
    for (int i = 0; i < noEndpoint.length; i += 7) {
      byte[] bad = noEndpoint.clone();
      bad[i] ^= 0x40;
      assertThatThrownBy(() -> MetaStateMachine.restore(bad, MetaSettings.defaults()))
          .isInstanceOf(CorruptionException.class);
    }
    for (int len = 0; len < noEndpoint.length; len += 11) {
      byte[] cut = Arrays.copyOf(noEndpoint, len);
      assertThatThrownBy(() -> MetaStateMachine.restore(cut, MetaSettings.defaults()))
          .isInstanceOf(CorruptionException.class);
    }
  }

  static short version(byte[] snapshot) {
    return (short) (((snapshot[4] & 0xFF) << 8) | (snapshot[5] & 0xFF));
  }
}
