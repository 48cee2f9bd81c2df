package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.NodeSettings;
import dev.loam.cli.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoamNodeMainTest {
  static final String THREE = "n1=127.0.0.1:9001,n2=127.0.0.1:9002,n3=127.0.0.1:9003";

  @TempDir Path dir;

  /**
   * A valid command line for node {@code id} of {@code peers}; each of {@code extra}'s flags is
   * added, or replaces the value of the same base flag (a flag given twice is refused).
   */
  static String[] args(String id, String peers, String... extra) {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("--id", id);
    a.put("--peers", peers);
    a.put("--data-dir", "/tmp/x");
    a.put("--store", "file:///shared/loam");
    a.put("--http-port", "8081");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < extra.length; i++) {
      boolean hasValue = i + 1 < extra.length && !extra[i + 1].startsWith("--");
      if (a.containsKey(extra[i]) && hasValue) {
        a.put(extra[i], extra[++i]);
      } else {
        out.add(extra[i]);
      }
    }
    List<String> all = new ArrayList<>();
    a.forEach((k, v) -> all.addAll(List.of(k, v)));
    all.addAll(out);
    return all.toArray(String[]::new);
  }

  static String peers(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      b.append(i == 1 ? "" : ",").append("n").append(i).append("=127.0.0.1:").append(9000 + i);
    }
    return b.toString();
  }

  @Test
  void parsesTheRequiredOptionsWithDefaults() {
    NodeOptions o = NodeOptions.parse(args("n2", THREE));
    assertThat(o.id()).isEqualTo("n2");
    assertThat(o.voters()).containsOnlyKeys("n1", "n2", "n3");
    assertThat(o.voters().get("n2")).isEqualTo("127.0.0.1:9002");
    assertThat(o.listeners()).isEmpty();
    assertThat(o.metaDir()).isEqualTo(Path.of("/tmp/x/meta"));
    assertThat(o.advertisedAddress()).isEqualTo("http://127.0.0.1:8081");
    assertThat(o.role()).isEqualTo("voter");
    NodeSettings s = o.nodeSettings();
    assertThat(s.advertisedAddress()).isEqualTo("http://127.0.0.1:8081");
    assertThat(s.zone()).isEmpty();
    assertThat(s.slots()).isEqualTo(1);
    assertThat(s.standardFlushInterval())
        .isEqualTo(NodeSettings.defaults().standardFlushInterval());
    assertThat(o.ratisSettings().localIsVoter()).isTrue();
  }

  @Test
  void theJournalPortIsOffByDefaultAndOnTheAdvertisedHost() {
    assertThat(NodeOptions.parse(args("n1", THREE)).journalAddress()).isNull();
    NodeOptions o =
        NodeOptions.parse(
            args(
                "n1",
                THREE,
                "--journal-port",
                "9301",
                "--advertised-address",
                "http://n1.example:8081"));
    assertThat(o.journalAddress()).isEqualTo("n1.example:9301");
    assertThat(NodeOptions.parse(args("n1", THREE, "--journal-port", "off")).journalAddress())
        .isNull();
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--journal-port", "70000")))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--journal-port");
  }

  @Test
  void theJournalQuietSealIntervalIsTenMinutesAndBounded() {
    String[] port = {"--journal-port", "9301"};
    assertThat(NodeOptions.parse(args("n1", THREE, port)).journalQuietSeal())
        .isEqualTo(Duration.ofMinutes(10));
    assertThat(
            NodeOptions.parse(
                    args("n1", THREE, "--journal-port", "9301", "--journal-quiet-seal-ms", "30000"))
                .journalQuietSeal())
        .isEqualTo(Duration.ofSeconds(30));
    for (String bad : new String[] {"0", "-5", "999", "86400001", "soon"}) {
      assertThatThrownBy(
              () ->
                  NodeOptions.parse(
                      args("n1", THREE, "--journal-port", "9301", "--journal-quiet-seal-ms", bad)))
          .as("--journal-quiet-seal-ms %s", bad)
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("--journal-quiet-seal-ms");
    }
    assertThatThrownBy(
            () -> NodeOptions.parse(args("n1", THREE, "--journal-quiet-seal-ms", "30000")))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--journal-quiet-seal-ms")
        .hasMessageContaining("needs --journal-port");
  }

  @Test
  void faultInjectionIsOffUnlessAFaultFileIsGiven() {
    assertThat(NodeOptions.parse(args("n1", THREE)).faultFile()).isNull();
    assertThat(
            NodeOptions.parse(args("n1", THREE, "--fault-file", "/tmp/f.properties")).faultFile())
        .isEqualTo(Path.of("/tmp/f.properties"));
  }

  @Test
  void carriesZoneSlotsAddressAndFlushIntoTheNodeSettings() {
    NodeOptions o =
        NodeOptions.parse(
            args(
                "n1",
                THREE,
                "--zone",
                "eu-1a",
                "--slots",
                "4",
                "--advertised-address",
                "http://lb.example:80",
                "--flush-ms",
                "20",
                "--commits-in-flight",
                "2",
                "--host",
                "10.0.0.5"));
    NodeSettings s = o.nodeSettings();
    assertThat(s.maxCommitsInFlight()).isEqualTo(2);
    assertThat(s.zone()).isEqualTo("eu-1a");
    assertThat(s.slots()).isEqualTo(4);
    assertThat(s.advertisedAddress()).isEqualTo("http://lb.example:80");
    assertThat(s.standardFlushInterval()).isEqualTo(Duration.ofMillis(20));
    assertThat(o.host()).isEqualTo("10.0.0.5");
  }

  @Test
  void theSegmentThresholdIsSixtyFourMibUnlessGivenInKib() {
    assertThat(NodeOptions.parse(args("n1", THREE)).nodeSettings().segmentThresholdBytes())
        .isEqualTo(64L << 20)
        .isEqualTo(NodeSettings.defaults().segmentThresholdBytes());
    NodeSettings s =
        NodeOptions.parse(args("n1", THREE, "--segment-threshold-kib", "256")).nodeSettings();
    assertThat(s.segmentThresholdBytes()).isEqualTo(256L * 1024);
    assertThat(s.segmentMaxBytes()).isEqualTo(NodeSettings.defaults().segmentMaxBytes());
    assertThat(
            NodeOptions.parse(args("n1", THREE, "--segment-threshold-kib", "262144"))
                .nodeSettings()
                .segmentThresholdBytes())
        .isEqualTo(NodeSettings.defaults().segmentMaxBytes());
    for (String bad : List.of("0", "262145", "1m", "-4")) {
      assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--segment-threshold-kib", bad)))
          .as(bad)
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("--segment-threshold-kib");
    }
  }

  @Test
  void maintenanceRunsEveryThirtySecondsUnlessGiven() {
    assertThat(NodeOptions.parse(args("n1", THREE)).nodeSettings().maintenanceInterval())
        .isEqualTo(Duration.ofSeconds(30))
        .isEqualTo(NodeSettings.defaults().maintenanceInterval());
    assertThat(
            NodeOptions.parse(args("n1", THREE, "--maintenance-interval-ms", "2000"))
                .nodeSettings()
                .maintenanceInterval())
        .isEqualTo(Duration.ofSeconds(2));
    for (String bad : List.of("99", "3600001", "2s")) {
      assertThatThrownBy(
              () -> NodeOptions.parse(args("n1", THREE, "--maintenance-interval-ms", bad)))
          .as(bad)
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("--maintenance-interval-ms");
    }
  }

  @Test
  void theFirstPeersVoteAndTheRestListen() {
    assertThat(NodeOptions.defaultVoters(1)).isEqualTo(1);
    assertThat(NodeOptions.defaultVoters(3)).isEqualTo(3);
    assertThat(NodeOptions.defaultVoters(4)).isEqualTo(3);
    assertThat(NodeOptions.defaultVoters(5)).isEqualTo(5);
    assertThat(NodeOptions.defaultVoters(8)).isEqualTo(5);

    NodeOptions four = NodeOptions.parse(args("n4", peers(4)));
    assertThat(four.voters()).containsOnlyKeys("n1", "n2", "n3");
    assertThat(four.listeners()).containsOnlyKeys("n4");
    assertThat(four.role()).isEqualTo("listener");
    assertThat(four.ratisSettings().localIsVoter()).isFalse();

    NodeOptions seven = NodeOptions.parse(args("n1", peers(7)));
    assertThat(seven.voters()).containsOnlyKeys("n1", "n2", "n3", "n4", "n5");
    assertThat(seven.listeners()).containsOnlyKeys("n6", "n7");

    NodeOptions override = NodeOptions.parse(args("n1", peers(7), "--voters", "3"));
    assertThat(override.voters()).containsOnlyKeys("n1", "n2", "n3");
    assertThat(override.listeners()).hasSize(4);
  }

  @Test
  void parsesTheKafkaSaslMechanisms() {
    assertThat(NodeOptions.parse(args("n1", THREE)).kafkaSecurity().mechanisms())
        .containsExactlyInAnyOrder("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    assertThat(
            NodeOptions.parse(args("n1", THREE, "--kafka-sasl-mechanisms", "scram-sha-512, PLAIN"))
                .kafkaSecurity()
                .mechanisms())
        .containsExactly("SCRAM-SHA-512", "PLAIN");
    assertThat(
            NodeOptions.parse(args("n1", THREE, "--kafka-sasl-mechanisms", "none"))
                .kafkaSecurity()
                .mechanisms())
        .isEmpty();
    assertThatThrownBy(
            () -> NodeOptions.parse(args("n1", THREE, "--kafka-sasl-mechanisms", "GSSAPI")))
        .isInstanceOf(dev.loam.cli.UsageException.class)
        .hasMessageStartingWith("--kafka-sasl-mechanisms: unknown SASL mechanism")
        .hasMessageContaining("mechanism=GSSAPI");
  }

  @Test
  void parsesTheKafkaReauthenticationIntervalAndForwardingCa() throws Exception {
    KafkaFlags.Security defaults = NodeOptions.parse(args("n1", THREE)).kafkaSecurity();
    assertThat(defaults.reauthInterval()).isEqualTo(java.time.Duration.ZERO);
    assertThat(defaults.forwardCa()).isEmpty();
    assertThat(
            NodeOptions.parse(args("n1", THREE, "--kafka-reauth-interval", "90s"))
                .kafkaSecurity()
                .reauthInterval())
        .isEqualTo(java.time.Duration.ofSeconds(90));
    assertThat(
            LoamServerMain.parse(new String[] {"--kafka-reauth-interval", "5m"})
                .kafkaSecurity()
                .reauthInterval())
        .isEqualTo(java.time.Duration.ofMinutes(5));
    assertThat(
            NodeOptions.parse(args("n1", THREE, "--kafka-reauth-interval", "off"))
                .kafkaSecurity()
                .reauthInterval())
        .isZero();
    assertThatThrownBy(
            () -> NodeOptions.parse(args("n1", THREE, "--kafka-reauth-interval", "500ms")))
        .isInstanceOf(dev.loam.cli.UsageException.class)
        .hasMessageStartingWith("--kafka-reauth-interval: ")
        .hasMessageContaining("at least 1s");
    assertThatThrownBy(
            () -> NodeOptions.parse(args("n1", THREE, "--kafka-reauth-interval", "soon")))
        .hasMessageStartingWith("--kafka-reauth-interval: not a duration");
    Path notPem = Files.writeString(dir.resolve("ca.txt"), "not a certificate\n");
    assertThatThrownBy(
            () -> NodeOptions.parse(args("n1", THREE, "--kafka-forward-ca", notPem.toString())))
        .isInstanceOf(dev.loam.cli.UsageException.class)
        .hasMessageStartingWith("--kafka-forward-ca: ");
  }

  @Test
  void theKafkaFlagsReachTheGatewaysSettings() throws Exception {
    Path ca = dev.loam.tls.TestPki.create(dir, "forward").caCertificate();
    KafkaFlags.Security security =
        NodeOptions.parse(
                args(
                    "n1",
                    THREE,
                    "--kafka-reauth-interval",
                    "15m",
                    "--kafka-forward-ca",
                    ca.toString(),
                    "--kafka-sasl-mechanisms",
                    "SCRAM-SHA-256"))
            .kafkaSecurity();
    dev.loam.kafka.KafkaGatewaySettings.Builder b = dev.loam.kafka.KafkaGatewaySettings.builder();
    security.applyTo(b);
    dev.loam.kafka.KafkaGatewaySettings settings = b.build();
    assertThat(settings.reauthInterval()).isEqualTo(java.time.Duration.ofMinutes(15));
    assertThat(settings.forwardingTrust()).contains(ca);
    assertThat(settings.saslMechanisms()).containsExactly("SCRAM-SHA-256");
  }

  @Test
  void checksTheStoreSchemeAndTheFaultFileWhileParsing() throws Exception {
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--store", "fiel:///x")))
        .isInstanceOf(dev.loam.cli.UsageException.class)
        .hasMessageStartingWith("--store: no object store for scheme fiel (known: ");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--store", "/shared/loam")))
        .hasMessageStartingWith("--store: not a store URI (no scheme");
    Path absent = dir.resolve("faults.properties");
    assertThat(NodeOptions.parse(args("n1", THREE, "--fault-file", absent.toString())).faultFile())
        .isEqualTo(absent);
    Path noDir = dir.resolve("typo").resolve("faults.properties");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--fault-file", noDir.toString())))
        .hasMessage("--fault-file: no such directory " + noDir.getParent() + ": " + noDir);
    Path bad = Files.writeString(dir.resolve("bad.properties"), "read_unavailable=0.2 # comment\n");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--fault-file", bad.toString())))
        .hasMessageStartingWith("--fault-file: ")
        .hasMessageEndingWith(": " + bad);
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--id", "n 1")))
        .hasMessage("--id: not an id of [A-Za-z0-9._-]+: n 1");
  }

  @Test
  void refusesBadCommandLines() {
    assertThatThrownBy(() -> NodeOptions.parse(args("n9", THREE)))
        .hasMessageContaining("--id: n9 is not one of the --peers");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE + ",n1=h:1")))
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", "n1=nohost")))
        .hasMessageContaining("id=host:port");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", "n1=h:70000")))
        .hasMessageContaining("--peers: the port of peer n1: not in 1..65535: 70000");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--voters", "4")))
        .hasMessageContaining("exceeds");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--store", "mem://")))
        .hasMessageContaining("shared store");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--bogus", "1")))
        .hasMessageContaining("--bogus: unknown option");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--slots")))
        .hasMessageContaining("--slots: missing value N");
    assertThatThrownBy(() -> NodeOptions.parse(args("n1", THREE, "--advertised-address", "lb:80")))
        .hasMessageContaining("http://host:port");
    assertThatThrownBy(() -> NodeOptions.parse(new String[] {"--id", "n1"}))
        .hasMessageContaining("--peers: required");
  }

  @Test
  void aDataDirectoryKeepsTheIdentityOfItsFirstStart() throws Exception {
    NodeOptions n1 =
        NodeOptions.parse(args("n1", THREE, "--data-dir", dir.resolve("d").toString()));
    LoamNodeMain.checkIdentity(n1);
    LoamNodeMain.checkIdentity(n1);
    assertThat(dir.resolve("d/loam-node.properties")).exists();

    NodeOptions asN2 =
        NodeOptions.parse(args("n2", THREE, "--data-dir", dir.resolve("d").toString()));
    assertThatThrownBy(() -> LoamNodeMain.checkIdentity(asN2))
        .hasMessageContaining("another id")
        .hasMessageContaining("recorded=n1 given=n2");

    NodeOptions otherPeers =
        NodeOptions.parse(args("n1", peers(5), "--data-dir", dir.resolve("d").toString()));
    assertThatThrownBy(() -> LoamNodeMain.checkIdentity(otherPeers))
        .hasMessageContaining("another voters");

    // An empty metastore directory (a disk mounted there for the metastore) holds no metastore.
    Files.createDirectories(dir.resolve("mounted/meta"));
    NodeOptions onMountedDisk =
        NodeOptions.parse(args("n1", THREE, "--data-dir", dir.resolve("mounted").toString()));
    LoamNodeMain.checkIdentity(onMountedDisk);
    assertThat(dir.resolve("mounted/loam-node.properties")).exists();

    Files.createDirectories(dir.resolve("server/meta/group"));
    NodeOptions onServerDir =
        NodeOptions.parse(args("n1", THREE, "--data-dir", dir.resolve("server").toString()));
    assertThatThrownBy(() -> LoamNodeMain.checkIdentity(onServerDir))
        .hasMessageContaining("not started by loam node");
  }
}
