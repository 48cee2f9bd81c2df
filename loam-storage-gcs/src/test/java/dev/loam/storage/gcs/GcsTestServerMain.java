package dev.loam.storage.gcs;

import java.util.concurrent.CountDownLatch;

/**
 * Runs the GCS JSON-API test server on its own, for trying Loam by hand against {@code gs://}: it
 * creates the buckets named on the command line, prints the endpoint, and serves until killed.
 *
 * <pre>
 * mvn -B -q -pl loam-storage-gcs test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp loam-storage-gcs/target/test-classes:loam-storage-gcs/target/classes:$(cat \
 *     loam-storage-gcs/target/cp.txt) dev.loam.storage.gcs.GcsTestServerMain loam-demo
 * ./loam demo --store 'gs://loam-demo/demo?host=http://127.0.0.1:PORT&#38;project=test'
 * </pre>
 */
public final class GcsTestServerMain {
  private GcsTestServerMain() {}

  public static void main(String[] args) throws Exception {
    GcsTestServer server = GcsTestServer.start();
    for (String bucket : args) {
      server.createBucket(bucket);
    }
    System.out.println(
        "gcs test server at " + server.endpoint() + " buckets=" + String.join(",", args));
    new CountDownLatch(1).await();
  }
}
