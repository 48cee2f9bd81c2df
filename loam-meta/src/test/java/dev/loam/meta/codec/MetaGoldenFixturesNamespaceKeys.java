package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.DestroyNamespaceKeys;
import dev.loam.meta.command.NamespaceKeys;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixtures of the namespace keys' golden files: command tags 38–39, outcome tag 27 and snapshot
 * version 10 (metastore-commands.md, metastore-snapshot.md).
 */
final class MetaGoldenFixturesNamespaceKeys {
  static final String COMMANDS_V1_NAMESPACE_KEYS = "metastore-commands-v1-nskeys.bin";
  static final String OUTCOMES_V1_NAMESPACE_KEYS = "outcomes-v1-nskeys.bin";
  static final String SNAPSHOT_V10 = "metastore-snapshot-v10.bin";

  static final String KEY_1 = "01J0GXQ2E4KX9V0M3N5P6R8S9T";
  static final String KEY_2 = "01J0GXQ3F5MY0W1N4P6Q7S9T0V";
  static final String KEY_3 = "01J0GXQ4G6NZ1X2P5Q7R8T0V1W";

  private MetaGoldenFixturesNamespaceKeys() {}

  /**
   * Tag 38 with a ULID and with a string the state machine refuses (the codec carries it), a
   * multi-byte namespace; tag 39.
   */
  static List<Command> commandsNamespaceKeys() {
    Origin a = originA(11_000);
    return List.of(
        new AddNamespaceKey(a, "analytics", KEY_1),
        new AddNamespaceKey(new Origin("nœud-ß", 3L, -1L), "données", "not-a-ulid"),
        new DestroyNamespaceKeys(originB(11_100), "analytics"));
  }

  /** Tag 27: a first key (changed), a rotated set unchanged by a retry, and a destroyed set. */
  static List<Outcome> outcomesNamespaceKeys() {
    return List.of(
        new Outcome.NamespaceKeysChanged(
            new NamespaceKeys("analytics", List.of(KEY_1), false), true),
        new Outcome.NamespaceKeysChanged(
            new NamespaceKeys("analytics", List.of(KEY_1, KEY_2), false), false),
        new Outcome.NamespaceKeysChanged(new NamespaceKeys("vault", List.of(KEY_3), true), true));
  }

  /**
   * The v1 sequence (namespaces default and analytics), then: analytics given KEY_1 and rotated to
   * KEY_2, the rotation retried (no change); namespace vault created, given KEY_3, and its keys
   * destroyed.
   */
  static List<Command> snapshotV10Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    out.add(new AddNamespaceKey(originA(11_000), "analytics", KEY_1));
    out.add(new AddNamespaceKey(originA(11_100), "analytics", KEY_2));
    out.add(new AddNamespaceKey(originB(11_200), "analytics", KEY_2));
    out.add(new CreateNamespace(originB(11_300), "vault"));
    out.add(new AddNamespaceKey(originB(11_400), "vault", KEY_3));
    out.add(new DestroyNamespaceKeys(originA(11_500), "vault"));
    return out;
  }
}
