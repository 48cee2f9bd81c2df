package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static dev.loam.meta.codec.MetaGoldenFixturesApiKeys.ADMIN_ID;
import static dev.loam.meta.codec.MetaGoldenFixturesApiKeys.TEAM_ID;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ApiKeyRole;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of the API keys (STYLE.md §3): command tags 26 and 27 and outcome tags 19 and 20
 * (still format version 1), and snapshot version 7. Decoded forever; a failure is a compatibility
 * break, never a reason to regenerate.
 */
class MetaGoldenFilesApiKeysTest {

  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFixturesApiKeys.COMMANDS_V1_API_KEYS);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(26, 26, 26, 27);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesApiKeys.commandsApiKeys());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void createApiKeyIsTheOriginIdScopeRolesThenTheSecretsBlock() throws IOException {
    // Written out here, so a fixture edit cannot silently move the golden file.
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesApiKeys.COMMANDS_V1_API_KEYS));
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 26);
    assertThat(string(b)).as("origin.nodeId").isEqualTo("node-a");
    assertThat(b.getLong()).as("origin.nodeEpoch").isEqualTo(EPOCH_A);
    assertThat(b.getLong()).as("origin.stampMillis").isEqualTo(1_780_000_000_977L);
    assertThat(string(b)).as("id").isEqualTo(ADMIN_ID);
    assertThat(b.getInt()).as("scope (null)").isEqualTo(-1);
    assertThat(b.get()).as("roles: all four bits").isEqualTo((byte) 0x0F);
    assertThat(bytes(b)).as("salt").isEqualTo(MetaGoldenFixturesApiKeys.counting(0, 16));
    assertThat(b.getInt()).as("iterations").isEqualTo(4096);
    assertThat(bytes(b)).as("storedKey256").hasSize(32);
    assertThat(bytes(b)).as("serverKey256").hasSize(32);
    assertThat(bytes(b)).as("storedKey512").hasSize(64);
    assertThat(bytes(b)).as("serverKey512").hasSize(64);
    assertThat(b.hasRemaining()).isFalse();

    // The namespace key: scope a str, roles produce|consume = 0x03.
    CreateApiKey team = (CreateApiKey) CommandCodec.decode(frames.get(1));
    assertThat(team.scope()).isEqualTo("analytics");
    assertThat(team.roles()).containsExactly(ApiKeyRole.PRODUCE, ApiKeyRole.CONSUME);
    assertThat(team.secrets().iterations()).isEqualTo(100_000);
    // The refused one still decodes: the codec carries any lengths.
    CreateApiKey refused = (CreateApiKey) CommandCodec.decode(frames.get(2));
    assertThat(refused.secrets().isWellFormed()).isFalse();
    assertThat(ApiKeyInfo.isValidId(refused.id())).isFalse();
    RevokeApiKey revoke = (RevokeApiKey) CommandCodec.decode(frames.get(3));
    assertThat(revoke.id()).isEqualTo(TEAM_ID);
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFixturesApiKeys.OUTCOMES_V1_API_KEYS);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(19, 20, 20);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesApiKeys.outcomesApiKeys());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    // Tag 20 is the key, then a bool: the frames differ only in their last byte.
    byte[] changed = frames.get(1);
    byte[] unchanged = frames.get(2);
    assertThat(changed[changed.length - 1]).isEqualTo((byte) 1);
    assertThat(unchanged[unchanged.length - 1]).isEqualTo((byte) 0);
    assertThat(Arrays.copyOf(changed, changed.length - 1))
        .isEqualTo(Arrays.copyOf(unchanged, unchanged.length - 1));
  }

  @Test
  void snapshotV7RestoresTheKeysAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesApiKeys.SNAPSHOT_V7);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 7);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    assertThat(r.appliedIndex()).isEqualTo(13L);
    assertThat(r.clockMillis()).isEqualTo(START + 9_300);
    assertThat(r.apiKeys()).extracting(ApiKeyInfo::id).containsExactly(ADMIN_ID, TEAM_ID);
    ApiKeyInfo admin = r.apiKey(ADMIN_ID).orElseThrow();
    assertThat(admin.scope()).isNull();
    assertThat(admin.roles()).containsExactly(ApiKeyRole.CLUSTER_ADMIN);
    assertThat(admin.createdAtMillis()).isEqualTo(START + 9_000);
    assertThat(admin.revoked()).isFalse();
    ApiKeyInfo team = r.apiKey(TEAM_ID).orElseThrow();
    assertThat(team.scope()).isEqualTo("analytics");
    assertThat(team.revokedAtMillis()).isEqualTo(START + 9_300);
    assertThat(team.secrets()).isEqualTo(MetaGoldenFixturesApiKeys.secrets(3, 4096));

    // The v1 content is there unchanged, then empty v2..v4 sections, a null cluster id, no
    // endpoints, and the keys.
    byte[] v1 = golden(MetaGoldenFilesWriter.SNAPSHOT_V1);
    int v1Body = v1.length - 4 - 24;
    assertThat(Arrays.copyOfRange(bytes, 24, 24 + v1Body))
        .isEqualTo(Arrays.copyOfRange(v1, 24, 24 + v1Body));
    ByteBuffer b = ByteBuffer.wrap(bytes, 24 + v1Body, bytes.length - 24 - v1Body);
    assertThat(b.getInt()).as("retired.count").isZero();
    assertThat(b.getLong()).as("nextProducerId").isZero();
    assertThat(b.getInt()).as("consumers.count").isZero();
    assertThat(b.getInt()).as("renewals.count").isZero();
    assertThat(b.getInt()).as("dead.count").isZero();
    assertThat(b.getInt()).as("ownerships.count").isZero();
    assertThat(b.getInt()).as("clusterId length (null)").isEqualTo(-1);
    assertThat(b.getInt()).as("endpoints.count").isZero();
    assertThat(b.getInt()).as("apiKeys.count").isEqualTo(2);
    assertThat(string(b)).isEqualTo(ADMIN_ID);
    assertThat(b.getInt()).as("scope (null)").isEqualTo(-1);
    assertThat(b.get()).as("roles").isEqualTo((byte) 0x08);
    assertThat(b.getLong()).as("createdAtMillis").isEqualTo(START + 9_000);
    assertThat(b.getLong()).as("revokedAtMillis (active)").isEqualTo(-1L);

    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesApiKeys.snapshotV7Commands()).snapshot())
        .isEqualTo(bytes);
  }

  private static String string(ByteBuffer b) {
    return new String(bytes(b), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return s;
  }
}
