package dev.loam.kafka.internal.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link ForwardingToken}: a minted token is accepted exactly for its key, node and lifetime, with
 * its namespace; any other key bytes, key id, node, time, or any change to its text is refused; and
 * arbitrary text is refused without an exception.
 */
class ForwardingTokenPropertyTest {
  private static final long NOW = 1_800_000_000_000L;

  @Property(tries = 300)
  void aMintedTokenIsAcceptedForItsKeyNodeAndLifetimeOnly(
      @ForAll @Size(32) byte[] serverKey,
      @ForAll("ids") String keyId,
      @ForAll("namespaces") String namespace,
      @ForAll("ids") String node,
      @ForAll @LongRange(min = 1, max = ForwardingToken.MAX_LIFETIME_MILLIS) long validFor) {
    String token = ForwardingToken.mint(serverKey, keyId, namespace, node, NOW + validFor);
    assertThat(ForwardingToken.looksLikeToken(token)).isTrue();
    assertThat(ForwardingToken.verify(serverKey, keyId, node, token, NOW))
        .contains(new ForwardingToken.Claim(keyId, namespace));
    // Expired, exactly at its end and after.
    assertThat(ForwardingToken.verify(serverKey, keyId, node, token, NOW + validFor)).isEmpty();
    byte[] otherKey = serverKey.clone();
    otherKey[0] ^= 1;
    assertThat(ForwardingToken.verify(otherKey, keyId, node, token, NOW)).isEmpty();
    assertThat(ForwardingToken.verify(serverKey, keyId + "x", node, token, NOW)).isEmpty();
    assertThat(ForwardingToken.verify(serverKey, keyId, node + "x", token, NOW)).isEmpty();
  }

  @Property(tries = 100)
  void aTokenValidForTooLongIsRefused(
      @ForAll @Size(32) byte[] serverKey,
      @ForAll @LongRange(min = 1, max = 1_000_000_000L) long beyond) {
    String token =
        ForwardingToken.mint(
            serverKey, "k", "ns", "n", NOW + ForwardingToken.MAX_LIFETIME_MILLIS + beyond);
    assertThat(ForwardingToken.verify(serverKey, "k", "n", token, NOW)).isEmpty();
  }

  @Property(tries = 500)
  void anyChangeToTheTextIsRefused(
      @ForAll @Size(32) byte[] serverKey,
      @ForAll("namespaces") String namespace,
      @ForAll long seed) {
    String token = ForwardingToken.mint(serverKey, "k", namespace, "n", NOW + 60_000);
    Random r = new Random(seed);
    StringBuilder b = new StringBuilder(token);
    int at = r.nextInt(b.length());
    switch (r.nextInt(3)) {
      case 0 -> b.setCharAt(at, (char) (b.charAt(at) == 'A' ? 'B' : 'A'));
      case 1 -> b.deleteCharAt(at);
      default -> b.insert(at, "A");
    }
    String changed = b.toString();
    Optional<ForwardingToken.Claim> c = ForwardingToken.verify(serverKey, "k", "n", changed, NOW);
    assertThat(c).as(changed).isEmpty();
  }

  @Property(tries = 1000)
  void arbitraryTextIsRefusedWithoutAnException(
      @ForAll @Size(32) byte[] serverKey, @ForAll("texts") String text) {
    assertThat(ForwardingToken.verify(serverKey, "k", "n", text, NOW)).isEmpty();
    assertThat(ForwardingToken.verify(serverKey, "k", "n", ForwardingToken.PREFIX + text, NOW))
        .isEmpty();
  }

  @Provide
  Arbitrary<String> ids() {
    return Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(16);
  }

  @Provide
  Arbitrary<String> namespaces() {
    return Arbitraries.strings()
        .alpha()
        .numeric()
        .withChars("-_.é日")
        .ofMinLength(1)
        .ofMaxLength(40);
  }

  @Provide
  Arbitrary<String> texts() {
    return Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(200),
        Arbitraries.strings().withChars("0123456789.-_AZaz=").ofMaxLength(120));
  }
}
