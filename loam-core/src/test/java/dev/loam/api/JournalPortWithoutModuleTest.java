package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * loam-core does not carry the quorum class: a node given a journal port on a class path without
 * loam-journal (loam-core's own tests) refuses to start, naming the module, and registers nothing;
 * without a journal port the node starts as usual and has no journal host. The journal port's own
 * settings are checked before anything starts: peer TLS must be mutual, a quiet-seal interval
 * within 1 s..1 day, and both need a journal port.
 */
class JournalPortWithoutModuleTest {
  @TempDir Path dir;

  @Test
  void aJournalPortNeedsTheJournalModule() {
    assertThatThrownBy(
            () ->
                LoamNode.builder()
                    .nodeId("n1")
                    .dataDir(dir)
                    .journalAddress("127.0.0.1:1")
                    .start()
                    .close())
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining("loam-journal");
    try (LoamNode n = LoamNode.builder().nodeId("n1").dataDir(dir).start()) {
      assertThat(n.quorumHost()).isEmpty();
    }
  }

  @Test
  void aJournalPortNeedsADirectory() {
    assertThatThrownBy(
            () ->
                LoamNode.builder()
                    .nodeId("n1")
                    .objectStore(
                        new dev.loam.store.memory.InMemoryObjectStore(
                            java.time.InstantSource.system()))
                    .journalAddress("127.0.0.1:1")
                    .start())
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("data directory");
  }

  @Test
  void journalPeerTlsIsMutualAndNeedsAJournalPort() {
    dev.loam.tls.TestPki ca = dev.loam.tls.TestPki.create(dir.resolve("pki"), "cluster");
    dev.loam.tls.TestPki.Issued cert = ca.issue("n1");
    dev.loam.tls.TlsSettings serverOnly = cert.settings();
    assertThatThrownBy(
            () ->
                LoamNode.builder()
                    .nodeId("n1")
                    .dataDir(dir)
                    .journalAddress("127.0.0.1:1")
                    .journalPeerTls(serverOnly)
                    .start())
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining("must require client certificates")
        .hasMessageContaining("certificate=" + cert.certificate());
    assertThatThrownBy(
            () ->
                LoamNode.builder()
                    .nodeId("n1")
                    .dataDir(dir)
                    .journalPeerTls(serverOnly.withClientCa(ca.caCertificate()))
                    .start())
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining("without a journal address");
  }

  @Test
  void theQuietSealIntervalIsBoundedAndNeedsAJournalPort() {
    for (java.time.Duration bad :
        new java.time.Duration[] {
          java.time.Duration.ZERO,
          java.time.Duration.ofMillis(-1),
          java.time.Duration.ofMillis(999),
          java.time.Duration.ofDays(1).plusMillis(1)
        }) {
      assertThatThrownBy(
              () ->
                  LoamNode.builder()
                      .nodeId("n1")
                      .dataDir(dir)
                      .journalAddress("127.0.0.1:1")
                      .journalQuietSealInterval(bad)
                      .start())
          .as("interval %s", bad)
          .isInstanceOfSatisfying(
              LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
          .hasMessageContaining("journalQuietSealInterval must be within PT1S..PT24H")
          .hasMessageContaining("journalQuietSealInterval=" + bad);
    }
    // In range, the node gets as far as looking for the journal module.
    assertThatThrownBy(
            () ->
                LoamNode.builder()
                    .nodeId("n1")
                    .dataDir(dir)
                    .journalAddress("127.0.0.1:1")
                    .journalQuietSealInterval(java.time.Duration.ofSeconds(1))
                    .start())
        .hasMessageContaining("loam-journal");
    assertThatThrownBy(
            () ->
                LoamNode.builder()
                    .nodeId("n1")
                    .dataDir(dir)
                    .journalQuietSealInterval(java.time.Duration.ofMinutes(1))
                    .start())
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("without a journal address");
  }
}
