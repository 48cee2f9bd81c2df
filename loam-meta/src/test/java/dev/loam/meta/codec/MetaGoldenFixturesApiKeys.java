package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ApiKeyRole;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.command.ScramSecrets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The fixed inputs of the API keys' golden files, written by {@link MetaGoldenFilesWriter}: command
 * tags 26 (CreateApiKey) and 27 (RevokeApiKey), outcome tags 19 (ApiKeyCreated) and 20
 * (ApiKeyRevoked), and snapshot version 7. Never change them: the files are decoded forever.
 */
final class MetaGoldenFixturesApiKeys {
  static final String COMMANDS_V1_API_KEYS = "metastore-commands-v1-apikeys.bin";
  static final String OUTCOMES_V1_API_KEYS = "outcomes-v1-apikeys.bin";
  static final String SNAPSHOT_V7 = "metastore-snapshot-v7.bin";

  static final String ADMIN_ID = "adminkeyabcd2345";
  static final String TEAM_ID = "teamakeyabcdefgh";

  private MetaGoldenFixturesApiKeys() {}

  /** Secrets whose bytes count up from {@code first}: every array distinct and recognisable. */
  static ScramSecrets secrets(int first, int iterations) {
    return new ScramSecrets(
        counting(first, 16),
        iterations,
        counting(first + 16, 32),
        counting(first + 48, 32),
        counting(first + 80, 64),
        counting(first + 144, 64));
  }

  static byte[] counting(int first, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (first + i);
    }
    return b;
  }

  /**
   * Command tag 26: a cluster-wide key with every role, a namespace key with two, and one the state
   * machine refuses (bad id, short salt: the codec carries it); tag 27: a revocation.
   */
  static List<Command> commandsApiKeys() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_977L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    return List.of(
        new CreateApiKey(a, ADMIN_ID, null, EnumSet.allOf(ApiKeyRole.class), secrets(0, 4096)),
        new CreateApiKey(
            b,
            TEAM_ID,
            "analytics",
            EnumSet.of(ApiKeyRole.PRODUCE, ApiKeyRole.CONSUME),
            secrets(7, 100_000)),
        new CreateApiKey(
            a,
            "Not-Valid",
            "x",
            EnumSet.of(ApiKeyRole.ADMIN),
            new ScramSecrets(new byte[3], 1, new byte[0], new byte[1], new byte[2], new byte[4])),
        new RevokeApiKey(a, TEAM_ID));
  }

  /** Outcome tags 19 and 20: an active key, and a revoked one, changed and not. */
  static List<Outcome> outcomesApiKeys() {
    ApiKeyInfo admin =
        new ApiKeyInfo(
            ADMIN_ID,
            null,
            EnumSet.of(ApiKeyRole.CLUSTER_ADMIN),
            START,
            ApiKeyInfo.ACTIVE,
            secrets(0, 4096));
    ApiKeyInfo team =
        new ApiKeyInfo(
            TEAM_ID,
            "analytics",
            EnumSet.of(ApiKeyRole.CONSUME),
            START + 1,
            START + 2,
            secrets(9, 8192));
    return List.of(
        new Outcome.ApiKeyCreated(admin),
        new Outcome.ApiKeyRevoked(team, true),
        new Outcome.ApiKeyRevoked(team, false));
  }

  /**
   * The v1 sequence, then: a cluster-admin key, a produce+consume key on analytics, a retry of the
   * first (no change), and the second revoked. No endpoints, cluster id or v2..v4 content: those
   * sections are written empty and the cluster id null.
   */
  static List<Command> snapshotV7Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    CreateApiKey admin =
        new CreateApiKey(
            originA(9_000), ADMIN_ID, null, EnumSet.of(ApiKeyRole.CLUSTER_ADMIN), secrets(0, 4096));
    out.add(admin);
    out.add(
        new CreateApiKey(
            originB(9_100),
            TEAM_ID,
            "analytics",
            EnumSet.of(ApiKeyRole.PRODUCE, ApiKeyRole.CONSUME),
            secrets(3, 4096)));
    out.add(
        new CreateApiKey(
            originA(9_200), admin.id(), admin.scope(), admin.roles(), admin.secrets()));
    out.add(new RevokeApiKey(originA(9_300), TEAM_ID));
    return out;
  }
}
