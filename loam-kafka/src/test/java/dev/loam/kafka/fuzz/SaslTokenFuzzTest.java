package dev.loam.kafka.fuzz;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.kafka.internal.security.SaslTokenFuzzing;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the SASL messages a Kafka client sends the gateway (SCRAM-SHA-256/512
 * first and final messages, PLAIN messages): the first input byte picks the mechanism and step, the
 * rest is the message. Contract ({@code SaslTokenContract}): refused with a SASL error naming no
 * password, or accepted; complete only when the password was proven.
 */
class SaslTokenFuzzTest {
  @DictionaryEntries({
    "n,,",
    "n=",
    ",r=",
    "c=biws",
    ",p=",
    "a=",
    "=2C",
    "=3D",
    "tokenauth=true",
    "\u0000"
  })
  @FuzzTest
  void saslTokens(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    SaslTokenFuzzing.check(input[0], Arrays.copyOfRange(input, 1, input.length));
  }
}
