package dev.loam.kafka.internal.security;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.security.sasl.SaslClient;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * {@link SaslTokenContract} over random bytes, over valid SASL messages (SCRAM first and final
 * messages of kafka-clients' client, PLAIN messages) with bytes flipped, inserted or cut, and over
 * each mechanism's valid message sent where another's belongs.
 */
class SaslTokenPropertyTest {
  @Property(tries = 400)
  void randomBytes(@ForAll @IntRange(min = 0, max = 4) int mode, @ForAll("bytes") byte[] token)
      throws Exception {
    SaslTokenContract.check(mode, token);
  }

  @Property(tries = 600)
  void mutatedValidMessages(
      @ForAll @IntRange(min = 0, max = 4) int mode, @ForAll("mutations") long seed)
      throws Exception {
    byte[] valid = valid(mode);
    java.util.Random r = new java.util.Random(seed);
    byte[] token = mutate(valid, r);
    SaslTokenContract.check(mode, token);
  }

  /**
   * One mechanism's valid message where another's (or another step's) belongs: a misconfigured
   * client sending its PLAIN password to a SCRAM exchange must not see it quoted in the error.
   */
  @Property(tries = 100)
  void anotherMechanismsMessage(
      @ForAll @IntRange(min = 0, max = 4) int mode, @ForAll @IntRange(min = 0, max = 4) int from)
      throws Exception {
    SaslTokenContract.check(mode, valid(from));
  }

  @Provide
  Arbitrary<byte[]> bytes() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
  }

  @Provide
  Arbitrary<Long> mutations() {
    return Arbitraries.longs();
  }

  static byte[] valid(int mode) throws Exception {
    if (mode == 4) {
      return ("\0" + ScramExchanges.USER + "\0" + SaslTokenContract.PASSWORD)
          .getBytes(StandardCharsets.UTF_8);
    }
    ScramMechanism m = mode % 2 == 0 ? ScramMechanism.SCRAM_SHA_256 : ScramMechanism.SCRAM_SHA_512;
    SaslClient client =
        ScramExchanges.client(m, ScramExchanges.USER, SaslTokenContract.PASSWORD, Map.of());
    byte[] first = client.evaluateChallenge(new byte[0]);
    if (mode < 2) {
      return first;
    }
    // A final message for some other exchange's server nonce: the contract's fresh server has its
    // own, so the message must fail whatever the mutation leaves of it.
    ScramServer other = ScramExchanges.server(m, SaslTokenContract.credential(m));
    return client.evaluateChallenge(other.evaluateResponse(first));
  }

  static byte[] mutate(byte[] b, java.util.Random r) {
    byte[] out = b.clone();
    int kind = r.nextInt(3);
    if (kind == 0 && out.length > 0) {
      for (int i = 0; i < 1 + r.nextInt(3); i++) {
        out[r.nextInt(out.length)] ^= (byte) (1 << r.nextInt(8));
      }
      return out;
    }
    if (kind == 1) {
      int at = r.nextInt(out.length + 1);
      byte[] ins = new byte[1 + r.nextInt(4)];
      r.nextBytes(ins);
      byte[] n = new byte[out.length + ins.length];
      System.arraycopy(out, 0, n, 0, at);
      System.arraycopy(ins, 0, n, at, ins.length);
      System.arraycopy(out, at, n, at + ins.length, out.length - at);
      return n;
    }
    return java.util.Arrays.copyOf(out, out.length == 0 ? 0 : r.nextInt(out.length));
  }
}
