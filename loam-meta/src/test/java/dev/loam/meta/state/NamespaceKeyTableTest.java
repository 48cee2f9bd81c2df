package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DestroyNamespaceKeys;
import dev.loam.meta.command.NamespaceKeys;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RegisterNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The namespace key rules on the state machine itself (AddNamespaceKey, DestroyNamespaceKeys), and
 * the version 10 snapshot section: written exactly while a namespace has a record, restored
 * exactly, and everything no writer produces refused as corruption.
 */
class NamespaceKeyTableTest {
  static final long T = SnapshotV2Test.T;
  static final String K1 = "01J0GXQ2E4KX9V0M3N5P6R8S9T";
  static final String K2 = "01J0GXQ3F5MY0W1N4P6Q7S9T0V";
  static final String K3 = "01J0GXQ4G6NZ1X2P5Q7R8T0V1W";

  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
  private long stamp;

  private Outcome apply(Command c) {
    return m.apply(m.appliedIndex() + 1, c);
  }

  private Origin at() {
    return new Origin("n1", 1, T + ++stamp);
  }

  private Outcome add(String ns, String ulid) {
    return apply(new AddNamespaceKey(at(), ns, ulid));
  }

  private static void rejected(Outcome o, RejectReason reason, String containing) {
    assertThat(o).as("%s", o).isInstanceOf(Outcome.Rejected.class);
    Outcome.Rejected r = (Outcome.Rejected) o;
    assertThat(r.reason()).as(r.message()).isEqualTo(reason);
    assertThat(r.message()).contains(containing);
  }

  @BeforeEach
  void cluster() {
    apply(new RegisterNode(at(), null, 1, null));
    apply(new CreateNamespace(at(), "tenant"));
  }

  @Test
  void aFirstKeyThenARotationAreRecordedOldestFirstAndARetryChangesNothing() {
    assertThat(add("tenant", K1))
        .isEqualTo(
            new Outcome.NamespaceKeysChanged(
                new NamespaceKeys("tenant", List.of(K1), false), true));
    Outcome rotated = add("tenant", K2);
    NamespaceKeys two = new NamespaceKeys("tenant", List.of(K1, K2), false);
    assertThat(rotated).isEqualTo(new Outcome.NamespaceKeysChanged(two, true));
    assertThat(add("tenant", K2)).isEqualTo(new Outcome.NamespaceKeysChanged(two, false));
    assertThat(m.reader().namespaceKeys("tenant")).contains(two);
    assertThat(two.currentKeyId()).isEqualTo("tenant/" + K2);
    assertThat(two.sealsNewData()).isTrue();
    assertThat(m.reader().namespaceKeys("default")).isEmpty();
  }

  @Test
  void badKeysAndUnknownNamespacesAreRefusedNamingWhatWasWrong() {
    rejected(add("nope", K1), RejectReason.NOT_FOUND, "namespace=nope");
    rejected(add("tenant", "not-a-ulid"), RejectReason.INVALID, "keyUlid=not-a-ulid");
    rejected(add("tenant", K1.toLowerCase()), RejectReason.INVALID, "ULID");
    rejected(add("tenant", "81J0GXQ2E4KX9V0M3N5P6R8S9T"), RejectReason.INVALID, "ULID");
    rejected(add("tenant", null), RejectReason.INVALID, "ULID");
    add("tenant", K2);
    rejected(add("tenant", K1), RejectReason.INVALID, "newer than the current one current=" + K2);
    rejected(apply(new DestroyNamespaceKeys(at(), "default")), RejectReason.INVALID, "has no key");
    rejected(apply(new DestroyNamespaceKeys(at(), "nope")), RejectReason.NOT_FOUND, "nope");
    assertThat(m.reader().namespaceKeys("tenant").orElseThrow().keyUlids()).containsExactly(K2);
  }

  @Test
  void destroyedKeysStayRecordedRefuseNewKeysAndDeletingTheNamespaceDropsThem() {
    add("tenant", K1);
    NamespaceKeys destroyed = new NamespaceKeys("tenant", List.of(K1), true);
    assertThat(apply(new DestroyNamespaceKeys(at(), "tenant")))
        .isEqualTo(new Outcome.NamespaceKeysChanged(destroyed, true));
    assertThat(apply(new DestroyNamespaceKeys(at(), "tenant")))
        .isEqualTo(new Outcome.NamespaceKeysChanged(destroyed, false));
    assertThat(destroyed.sealsNewData()).isFalse();
    rejected(add("tenant", K2), RejectReason.CONFLICT, "destroyed");
    assertThat(m.reader().namespaceKeys("tenant")).contains(destroyed);

    assertThat(apply(new DeleteNamespace(at(), "tenant"))).isInstanceOf(Outcome.Deleted.class);
    assertThat(m.reader().namespaceKeys("tenant")).isEmpty();
    apply(new CreateNamespace(at(), "tenant"));
    assertThat(m.reader().namespaceKeys("tenant")).isEmpty();
  }

  @Test
  void snapshotIsVersion10ExactlyWhileARecordExistsAndRestoresExactly() {
    byte[] before = m.snapshot();
    short old = ApiKeyTableTest.version(before);
    assertThat(old).isLessThan((short) 10);
    add("tenant", K1);
    add("tenant", K3);
    apply(new CreateNamespace(at(), "vault"));
    add("vault", K2);
    apply(new DestroyNamespaceKeys(at(), "vault"));
    byte[] v10 = m.snapshot();
    assertThat(ApiKeyTableTest.version(v10)).isEqualTo((short) 10);
    MetaStateMachine restored = MetaStateMachine.restore(v10, MetaSettings.defaults());
    assertThat(restored.snapshot()).isEqualTo(v10);
    assertThat(restored.reader().namespaceKeys("tenant"))
        .isEqualTo(m.reader().namespaceKeys("tenant"));
    assertThat(restored.reader().namespaceKeys("vault").orElseThrow().destroyed()).isTrue();

    // Deleting the namespaces that hold records goes back to the older version.
    apply(new DeleteNamespace(at(), "vault"));
    apply(new DeleteNamespace(at(), "tenant"));
    assertThat(ApiKeyTableTest.version(m.snapshot())).isEqualTo(old);
  }

  @Test
  void restoreRefusesKeysNoWriterProduces() {
    add("tenant", K1);
    add("tenant", K2);
    byte[] v10 = m.snapshot();
    // Swap the two ULIDs: decreasing order, with a valid CRC.
    byte[] swapped = v10.clone();
    int i1 = indexOf(swapped, K1);
    int i2 = indexOf(swapped, K2);
    System.arraycopy(K2.getBytes(StandardCharsets.US_ASCII), 0, swapped, i1, 26);
    System.arraycopy(K1.getBytes(StandardCharsets.US_ASCII), 0, swapped, i2, 26);
    assertThatThrownBy(() -> MetaStateMachine.restore(recrc(swapped), MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("namespaceKeys.keyUlid");
    // A lower-case ULID (not canonical).
    byte[] lower = v10.clone();
    lower[i1 + 5] = (byte) Character.toLowerCase((char) lower[i1 + 5]);
    assertThatThrownBy(() -> MetaStateMachine.restore(recrc(lower), MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("namespaceKeys.keyUlid");
    // A namespace the catalog lacks: "tenant" renamed "tenanx" in the keys section only.
    byte[] unknown = v10.clone();
    int ns = lastIndexOf(unknown, "tenant");
    unknown[ns + 5] = 'x';
    assertThatThrownBy(() -> MetaStateMachine.restore(recrc(unknown), MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("namespaceKeys.namespace");
    // An empty section in version 10.
    int count = ns - 4 - 4;
    byte[] empty = new byte[count + 4 + 4];
    System.arraycopy(v10, 0, empty, 0, count);
    ByteBuffer.wrap(empty).putInt(count, 0);
    assertThatThrownBy(() -> MetaStateMachine.restore(recrc(empty), MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("namespaceKeys.count");
    // Every truncation.
    for (int len = 0; len < v10.length; len++) {
      byte[] cut = Arrays.copyOf(v10, len);
      assertThatThrownBy(() -> MetaStateMachine.restore(cut, MetaSettings.defaults()))
          .isInstanceOf(CorruptionException.class);
    }
  }

  /** The same body under a recomputed CRC trailer, so the section's own checks are reached. */
  private static byte[] recrc(byte[] snapshot) {
    byte[] out = snapshot.clone();
    CRC32C crc = new CRC32C();
    crc.update(out, 0, out.length - 4);
    ByteBuffer.wrap(out).putInt(out.length - 4, (int) crc.getValue());
    return out;
  }

  private static int indexOf(byte[] haystack, String needle) {
    String s = new String(haystack, StandardCharsets.ISO_8859_1);
    return s.indexOf(needle);
  }

  private static int lastIndexOf(byte[] haystack, String needle) {
    String s = new String(haystack, StandardCharsets.ISO_8859_1);
    return s.lastIndexOf(needle);
  }
}
