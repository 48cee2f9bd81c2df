package dev.loam.bench.load;

import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * A call latency distribution: a lognormal fitted to a median and a 99th percentile, or none.
 *
 * <p>If {@code ln X ~ N(mu, sigma)} then {@code p50 = e^mu} and {@code p99 = e^(mu + z99 sigma)}
 * with {@code z99 = 2.3263}, so {@code mu = ln p50} and {@code sigma = ln(p99 / p50) / z99}.
 *
 * @param p50Millis the median in ms (0 for no delay)
 * @param p99Millis the 99th percentile in ms (at least the median)
 */
public record LatencyModel(double p50Millis, double p99Millis) {
  /** The standard normal quantile of 0.99. */
  static final double Z99 = 2.3263478740408408;

  /** No delay. */
  public static final LatencyModel NONE = new LatencyModel(0, 0);

  public LatencyModel {
    if (p50Millis < 0 || p99Millis < p50Millis || (p50Millis == 0 && p99Millis != 0)) {
      throw new IllegalArgumentException(
          "latency needs 0 <= p50 <= p99 (and p99 = 0 when p50 = 0): p50="
              + p50Millis
              + " p99="
              + p99Millis);
    }
  }

  public boolean isNone() {
    return p50Millis == 0;
  }

  double mu() {
    return Math.log(p50Millis);
  }

  double sigma() {
    return Math.log(p99Millis / p50Millis) / Z99;
  }

  /** One sampled latency in nanoseconds (0 for {@link #NONE}). */
  public long sampleNanos(RandomGenerator random) {
    if (isNone()) {
      return 0;
    }
    double ms = Math.exp(mu() + sigma() * random.nextGaussian());
    return (long) (ms * 1e6);
  }

  @Override
  public String toString() {
    return isNone()
        ? "none"
        : String.format(Locale.ROOT, "lognormal(p50=%.1fms,p99=%.1fms)", p50Millis, p99Millis);
  }

  /**
   * The latency of an object store: PUT-class calls (create, put, delete) and GET-class calls (get,
   * ranged get, tail, head, list).
   */
  public record Profile(String name, LatencyModel put, LatencyModel get) {
    public static final Profile LOCAL = new Profile("local", NONE, NONE);
    public static final Profile S3_STANDARD =
        new Profile("s3-standard", new LatencyModel(40, 200), new LatencyModel(20, 100));
    public static final Profile ZONAL_EXPRESS =
        new Profile("zonal-express", new LatencyModel(4, 10), new LatencyModel(4, 10));

    /**
     * Parses {@code local}, {@code s3-standard}, {@code zonal-express}, or {@code
     * custom:P50/P99[,GETP50/GETP99]} (ms; GET defaults to the PUT figures).
     */
    public static Profile parse(String s) {
      switch (s) {
        case "local":
        case "none":
          return LOCAL;
        case "s3-standard":
          return S3_STANDARD;
        case "zonal-express":
          return ZONAL_EXPRESS;
        default:
          break;
      }
      if (!s.startsWith("custom:")) {
        throw new IllegalArgumentException(
            "unknown latency preset "
                + s
                + " (local, s3-standard, zonal-express, custom:P50/P99[,GETP50/GETP99])");
      }
      String[] parts = s.substring("custom:".length()).split(",");
      LatencyModel put = pair(parts[0]);
      LatencyModel get = parts.length > 1 ? pair(parts[1]) : put;
      return new Profile(s, put, get);
    }

    private static LatencyModel pair(String s) {
      String[] pp = s.split("/");
      if (pp.length != 2) {
        throw new IllegalArgumentException("expected P50/P99 in ms, got " + s);
      }
      return new LatencyModel(Double.parseDouble(pp[0]), Double.parseDouble(pp[1]));
    }
  }
}
