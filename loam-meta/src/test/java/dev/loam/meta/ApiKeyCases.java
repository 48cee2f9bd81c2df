package dev.loam.meta;

import static dev.loam.meta.MetastoreContractTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ApiKeyRole;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.command.ScramSecrets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The bodies of the metastore kit's API key cases (CreateApiKey, RevokeApiKey,
 * docs/design/metastore.md "API keys"). {@link MetastoreContractTest} declares each case, so that
 * every implementation runs it; the bodies live here to keep the kit's file to a readable size.
 */
final class ApiKeyCases {
  static final String ID = "kitkeyabcdefghij";

  private ApiKeyCases() {}

  static ScramSecrets secrets(byte fill) {
    byte[] salt = new byte[ScramSecrets.SALT_BYTES];
    byte[] k32 = new byte[ScramSecrets.SHA256_BYTES];
    byte[] k64 = new byte[ScramSecrets.SHA512_BYTES];
    Arrays.fill(salt, fill);
    Arrays.fill(k32, (byte) (fill + 1));
    Arrays.fill(k64, (byte) (fill + 2));
    return new ScramSecrets(salt, ScramSecrets.MIN_ITERATIONS, k32, k32, k64, k64);
  }

  private static CreateApiKey create(MetastoreContractTest k, String id, String scope) {
    return new CreateApiKey(
        k.origin("n1", 1), id, scope, EnumSet.of(ApiKeyRole.PRODUCE), secrets((byte) 5));
  }

  static void createListAndRetry(MetastoreContractTest k) {
    k.register("n1", 1);
    Applied applied = k.propose(create(k, ID, "team-a"));
    ApiKeyInfo key = ((Outcome.ApiKeyCreated) applied.outcome()).key();
    assertThat(key.scope()).isEqualTo("team-a");
    assertThat(key.revoked()).isFalse();
    k.await(k.ms.awaitApplied(applied.index()));
    assertThat(k.ms.read((MetaReader r) -> r.apiKey(ID))).contains(key);
    // A retry of the same command answers the key as first created.
    assertThat(k.apply(create(k, ID, "team-a"))).isEqualTo(new Outcome.ApiKeyCreated(key));
    // Another key under that id is refused.
    assertRejected(k.apply(create(k, ID, null)), RejectReason.ALREADY_EXISTS);
    Applied second = k.propose(create(k, "kitkeyzzzzzzzzzz", null));
    k.await(k.ms.awaitApplied(second.index()));
    assertThat(k.ms.read(MetaReader::apiKeys))
        .extracting(ApiKeyInfo::id)
        .containsExactly(ID, "kitkeyzzzzzzzzzz");
  }

  static void revokeIsSeenByReadsAndListeners(MetastoreContractTest k) {
    k.register("n1", 1);
    k.apply(create(k, ID, null));
    List<String> revokedSeen = new CopyOnWriteArrayList<>();
    k.ms.addApplyListener(
        (index, command, outcome) -> {
          if (outcome instanceof Outcome.ApiKeyRevoked r && r.changed()) {
            revokedSeen.add(r.key().id());
          }
        });
    Applied revoked = k.propose(new RevokeApiKey(k.origin("n1", 1), ID));
    Outcome.ApiKeyRevoked r = (Outcome.ApiKeyRevoked) revoked.outcome();
    assertThat(r.changed()).isTrue();
    assertThat(r.key().revoked()).isTrue();
    k.await(k.ms.awaitApplied(revoked.index()));
    assertThat(k.ms.read((MetaReader m) -> m.apiKey(ID)).orElseThrow().revoked()).isTrue();
    assertThat(revokedSeen).containsExactly(ID);
    Outcome again = k.apply(new RevokeApiKey(k.origin("n1", 1), ID));
    assertThat(((Outcome.ApiKeyRevoked) again).changed()).isFalse();
    assertRejected(
        k.apply(new RevokeApiKey(k.origin("n1", 1), "kitkeyunknownaaa")), RejectReason.NOT_FOUND);
  }

  static void staleEpochAndInvalidKeysAreRefused(MetastoreContractTest k) {
    k.register("n1", 2);
    assertRejected(
        k.apply(
            new CreateApiKey(
                k.origin("n1", 1), ID, null, EnumSet.of(ApiKeyRole.ADMIN), secrets((byte) 1))),
        RejectReason.STALE_NODE_EPOCH);
    assertRejected(
        k.apply(
            new CreateApiKey(
                k.origin("n1", 2),
                ID,
                "team-a",
                EnumSet.of(ApiKeyRole.CLUSTER_ADMIN),
                secrets((byte) 1))),
        RejectReason.INVALID);
    assertRejected(
        k.apply(
            new CreateApiKey(
                k.origin("n1", 2), "BAD", null, EnumSet.of(ApiKeyRole.ADMIN), secrets((byte) 1))),
        RejectReason.INVALID);
    assertThat(k.ms.read(MetaReader::apiKeys)).isEmpty();
  }
}
