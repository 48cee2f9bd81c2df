package dev.loam.sim;

import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KmsContractTest;
import java.util.SplittableRandom;

/**
 * The simulation's KMS passes the same conformance kit as the local and the AWS implementations.
 */
class SimKmsContractTest extends KmsContractTest {
  private SimKms current;

  @Override
  protected KeyManagementService newKms() {
    current = new SimKms(new SplittableRandom(7));
    return current;
  }

  @Override
  protected KeyManagementService openAnotherHandle() {
    return current;
  }
}
