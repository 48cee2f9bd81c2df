package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyModelTest {
  private static double[] samplesMillis(LatencyModel m, int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = m.sampleNanos(r) / 1e6;
    }
    Arrays.sort(v);
    return v;
  }

  @Test
  void s3StandardPutHitsItsPercentiles() {
    double[] v = samplesMillis(LatencyModel.Profile.S3_STANDARD.put(), 200_000, 7);
    assertThat(v[v.length / 2]).isCloseTo(40, within(40 * 0.03));
    assertThat(v[(int) (v.length * 0.99)]).isCloseTo(200, within(200 * 0.05));
  }

  @Test
  void zonalExpressAndCustomHitTheirPercentiles() {
    double[] v = samplesMillis(LatencyModel.Profile.ZONAL_EXPRESS.put(), 200_000, 11);
    assertThat(v[v.length / 2]).isCloseTo(4, within(4 * 0.03));
    assertThat(v[(int) (v.length * 0.99)]).isCloseTo(10, within(10 * 0.05));
    LatencyModel.Profile p = LatencyModel.Profile.parse("custom:20/60,5/15");
    double[] g = samplesMillis(p.get(), 200_000, 13);
    assertThat(g[g.length / 2]).isCloseTo(5, within(5 * 0.03));
    assertThat(g[(int) (g.length * 0.99)]).isCloseTo(15, within(15 * 0.05));
  }

  @Test
  void sameSeedSameSamplesAndLocalIsNone() {
    LatencyModel m = new LatencyModel(40, 200);
    assertThat(samplesMillis(m, 100, 3)).containsExactly(samplesMillis(m, 100, 3));
    assertThat(LatencyModel.Profile.parse("local").put().sampleNanos(new SplittableRandom(1)))
        .isZero();
    assertThatThrownBy(() -> new LatencyModel(10, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LatencyModel.Profile.parse("s4"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
