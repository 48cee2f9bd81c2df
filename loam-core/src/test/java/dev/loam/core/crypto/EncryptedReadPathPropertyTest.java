package dev.loam.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Any mix of appends to a plain and an encrypted namespace (partitions, record sizes, appends in
 * flight together so their chunks share objects, a rotation at any point) reads back exactly, in
 * offset order, on a node without a tail cache, so every record is found through the offset index
 * entry's position in a sealed chunk and the chunk opened: the write path's index positions and the
 * read path's mapping agree for every layout.
 */
class EncryptedReadPathPropertyTest {

  record Append(boolean secret, int partition, int records, int valueBytes) {}

  @Provide
  Arbitrary<List<Append>> workloads() {
    return Combinators.combine(
            Arbitraries.of(true, false),
            Arbitraries.integers().between(0, 2),
            Arbitraries.integers().between(1, 20),
            Arbitraries.integers().between(1, 3000))
        .as(Append::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(30);
  }

  @Property(tries = 12)
  void everyLayoutReadsBack(
      @ForAll("workloads") List<Append> appends, @ForAll("rotateAt") int rotateAt)
      throws Exception {
    Path dir = Files.createTempDirectory("loam-enc-prop");
    try (Pkcs12KeyManagementService kms =
            new Pkcs12KeyManagementService(dir.resolve("kms.p12"), "pw".toCharArray());
        TestCluster cluster = new TestCluster(dir.resolve("meta"))) {
      NodeSettings settings = TestCluster.FAST.withTailCacheBytes(0);
      LoamNode n =
          LoamNode.builder()
              .nodeId("w")
              .settings(settings)
              .objectStore(cluster.memoryStore)
              .metastore(cluster.embeddedMeta)
              .keyManagement(kms)
              .start();
      cluster.adopt(n);
      n.log().createNamespace("plain").join();
      n.log().createEncryptedNamespace("secret").join();
      for (String ns : List.of("plain", "secret")) {
        n.log().createStream(ns, "s", StreamSpec.standard(3)).join();
      }
      List<List<String>> expectedPlain = new ArrayList<>();
      List<List<String>> expectedSecret = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        expectedPlain.add(new ArrayList<>());
        expectedSecret.add(new ArrayList<>());
      }
      // Appends go out in groups of up to four at once (one flush, shared objects); each group is
      // acknowledged before the next, so each partition's order is the order of the groups.
      List<CompletableFuture<?>> group = new ArrayList<>();
      for (int i = 0; i < appends.size(); i++) {
        if (i == rotateAt % (appends.size() + 1)) {
          CompletableFuture.allOf(group.toArray(CompletableFuture[]::new)).join();
          group.clear();
          n.log().addNamespaceKey("secret").join();
        }
        Append a = appends.get(i);
        List<AppendRecord> rs = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int r = 0; r < a.records(); r++) {
          String v = "a" + i + "r" + r + "-" + "x".repeat(a.valueBytes());
          values.add(v);
          rs.add(
              AppendRecord.of(null, v.getBytes(StandardCharsets.UTF_8)).toPartition(a.partition()));
        }
        String ns = a.secret() ? "secret" : "plain";
        (a.secret() ? expectedSecret : expectedPlain).get(a.partition()).addAll(values);
        group.add(n.log().append(ns, "s", rs));
        if (group.size() == 4) {
          CompletableFuture.allOf(group.toArray(CompletableFuture[]::new)).join();
          group.clear();
        }
      }
      CompletableFuture.allOf(group.toArray(CompletableFuture[]::new)).join();
      LoamNode reader =
          LoamNode.builder()
              .nodeId("r")
              .settings(settings)
              .objectStore(cluster.memoryStore)
              .metastore(cluster.embeddedMeta)
              .keyManagement(kms)
              .start();
      cluster.adopt(reader);
      for (int p = 0; p < 3; p++) {
        assertThat(read(reader, "secret", p))
            .as("secret partition %d", p)
            .isEqualTo(expectedSecret.get(p));
        assertThat(read(reader, "plain", p))
            .as("plain partition %d", p)
            .isEqualTo(expectedPlain.get(p));
      }
    }
  }

  @Provide
  Arbitrary<Integer> rotateAt() {
    return Arbitraries.integers().between(0, 40);
  }

  static List<String> read(LoamNode node, String ns, int partition) {
    List<String> out = new ArrayList<>();
    long offset = 0;
    while (true) {
      var r = node.log().fetch(ns, "s", partition, offset, 64 << 10, Duration.ZERO).join();
      if (r.records().isEmpty()) {
        return out;
      }
      for (FetchedRecord f : r.records()) {
        assertThat(f.offset()).isEqualTo(offset);
        out.add(new String(f.value(), StandardCharsets.UTF_8));
        offset++;
      }
    }
  }
}
