package dev.loam.http.internal.routes;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** The paths a 201's {@code Location} and a refusal's hint name. */
final class Locations {
  private Locations() {}

  /**
   * {@code /v1/namespaces/{ns}} for one segment, {@code /v1/namespaces/{ns}/streams/{s}} for two;
   * each segment percent-encoded.
   */
  static String of(String... segments) {
    StringBuilder b = new StringBuilder("/v1/namespaces");
    for (int i = 0; i < segments.length; i++) {
      b.append('/')
          .append(URLEncoder.encode(segments[i], StandardCharsets.UTF_8).replace("+", "%20"));
      if (i == 0 && segments.length > 1) {
        b.append("/streams");
      }
    }
    return b.toString();
  }
}
