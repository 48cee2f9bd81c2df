package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.Command;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.SetNodeEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The fixed inputs of the named endpoints' golden files, written by {@link MetaGoldenFilesWriter}:
 * command tag 25 (SetNodeEndpoint), outcome tag 18 (NodeRegistered with endpoints) and snapshot
 * version 6. Never change them: the files are decoded forever.
 */
final class MetaGoldenFixturesEndpoints {
  static final String COMMANDS_V1_ENDPOINTS = "metastore-commands-v1-endpoints.bin";
  static final String OUTCOMES_V1_ENDPOINTS = "outcomes-v1-endpoints.bin";
  static final String SNAPSHOT_V6 = "metastore-snapshot-v6.bin";

  /** The longest valid name: 32 characters, every class of the alphabet. */
  static final String NAME_32 = "z0123456789_-abcdefghijklmnopqrs";

  /** The longest valid address: 255 characters. */
  static final String ADDRESS_255 = "h".repeat(249) + ":65535";

  static final String KAFKA_A = "10.0.0.1:9092";
  static final String GRPC_A = "10.0.0.1:9090";
  static final String KAFKA_B = "[2001:db8::2]:9092";

  private MetaGoldenFixturesEndpoints() {}

  /**
   * Command tag 25: a set, a multi-byte origin and address, a removal (empty address), the longest
   * name and address, and a name the state machine refuses (the codec carries it).
   */
  static List<Command> commandsEndpoints() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_975L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    return List.of(
        new SetNodeEndpoint(a, "kafka", KAFKA_A),
        new SetNodeEndpoint(b, "otlp-grpc", "hôte.example:4317"),
        new SetNodeEndpoint(a, "kafka", ""),
        new SetNodeEndpoint(a, NAME_32, ADDRESS_255),
        new SetNodeEndpoint(b, "Not Valid", "x"));
  }

  /** Outcome tag 18: a node with two endpoints, and one with nullable fields null and one. */
  static List<Outcome> outcomesEndpoints() {
    TreeMap<String, String> two = new TreeMap<>();
    two.put("kafka", KAFKA_A);
    two.put("grpc", GRPC_A);
    TreeMap<String, String> one = new TreeMap<>();
    one.put("otlp-http", "hôte.example:4318");
    return List.of(
        new Outcome.NodeRegistered(
            new NodeInfo("node-a", EPOCH_A, "http://10.0.0.1:8080", 8, "eu-west-1a", two)),
        new Outcome.NodeRegistered(new NodeInfo("nœud-ß", 9L, null, 0, null, one)));
  }

  /**
   * The v1 sequence, then: node-a advertises kafka and grpc and sets kafka again to the same value
   * (no change); node-b advertises kafka, then grpc, then removes grpc. No cluster id, no retired
   * objects, producer ids, consumers or ownership activity: the v2..v4 sections are written empty
   * and the cluster id null.
   */
  static List<Command> snapshotV6Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    out.add(new SetNodeEndpoint(originA(9_000), "kafka", KAFKA_A));
    out.add(new SetNodeEndpoint(originA(9_100), "grpc", GRPC_A));
    out.add(new SetNodeEndpoint(originA(9_200), "kafka", KAFKA_A));
    out.add(new SetNodeEndpoint(originB(9_300), "kafka", KAFKA_B));
    out.add(new SetNodeEndpoint(originB(9_400), "grpc", "10.0.0.2:9090"));
    out.add(new SetNodeEndpoint(originB(9_500), "grpc", ""));
    return out;
  }
}
