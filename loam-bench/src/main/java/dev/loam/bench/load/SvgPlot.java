package dev.loam.bench.load;

import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * A hand-written SVG of latency percentile distributions (HdrHistogram style): x is the percentile
 * on a log scale of 1/(1-p) from 0 % to 99.99 %, y the latency in ms on a log scale. Solid lines
 * are ack latency, dashed lines end-to-end latency, one colour per scenario.
 */
public final class SvgPlot {
  private SvgPlot() {}

  /** One series: a scenario's merged histogram (microseconds). */
  public record Series(String name, Histogram ack, Histogram e2e) {}

  private static final String[] COLOURS = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"
  };
  private static final int W = 900;
  private static final int H = 520;
  private static final int L = 70;
  private static final int R = 250;
  private static final int T = 40;
  private static final int B = 60;
  private static final double XMAX = 4; // 99.99 %

  public static String render(String title, List<Series> series) {
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Series s : series) {
      for (Histogram h : new Histogram[] {s.ack(), s.e2e()}) {
        if (h != null && h.getTotalCount() > 0) {
          lo = Math.min(lo, Math.max(0.01, h.getMinValue() / 1000.0));
          hi = Math.max(hi, h.getMaxValue() / 1000.0);
        }
      }
    }
    if (hi == 0) {
      lo = 0.1;
      hi = 1;
    }
    double ylo = Math.floor(Math.log10(lo));
    double yhi = Math.ceil(Math.log10(hi));
    if (yhi <= ylo) {
      yhi = ylo + 1;
    }
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">\n",
            W,
            H));
    b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    b.append(
        String.format(
            Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\">%s</text>\n", L, escape(title)));
    double pw = W - L - R;
    double ph = H - T - B;
    // grid: x at 0, 90, 99, 99.9, 99.99 %
    String[] xl = {"0%", "90%", "99%", "99.9%", "99.99%"};
    for (int i = 0; i <= 4; i++) {
      double x = L + pw * i / XMAX;
      b.append(line(x, T, x, T + ph, "#ddd", null));
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
              x,
              T + ph + 18,
              xl[i]));
    }
    for (int e = (int) ylo; e <= (int) yhi; e++) {
      double y = T + ph - ph * (e - ylo) / (yhi - ylo);
      b.append(line(L, y, L + pw, y, "#ddd", null));
      double v = Math.pow(10, e);
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s ms</text>\n",
              L - 6,
              y + 4,
              v >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.valueOf(v)));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">percentile</text>\n",
            L + pw / 2,
            H - 15));
    b.append(line(L, T, L, T + ph, "#000", null));
    b.append(line(L, T + ph, L + pw, T + ph, "#000", null));
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      String colour = COLOURS[i % COLOURS.length];
      path(b, s.ack(), colour, null, pw, ph, ylo, yhi);
      path(b, s.e2e(), colour, "6,4", pw, ph, ylo, yhi);
      double ly = T + 10 + i * 36;
      b.append(line(L + pw + 15, ly, L + pw + 45, ly, colour, null));
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
              L + pw + 50,
              ly + 4,
              escape(s.name())));
      b.append(line(L + pw + 15, ly + 15, L + pw + 45, ly + 15, colour, "6,4"));
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">(end to end)</text>\n",
              L + pw + 50,
              ly + 19));
    }
    b.append("</svg>\n");
    return b.toString();
  }

  private static void path(
      StringBuilder b,
      Histogram h,
      String colour,
      String dash,
      double pw,
      double ph,
      double ylo,
      double yhi) {
    if (h == null || h.getTotalCount() == 0) {
      return;
    }
    StringBuilder d = new StringBuilder();
    for (int i = 0; i <= 200; i++) {
      double x = XMAX * i / 200;
      double p = 100 * (1 - Math.pow(10, -x));
      double ms = Math.max(Math.pow(10, ylo), h.getValueAtPercentile(p) / 1000.0);
      double px = L + pw * x / XMAX;
      double py = T + ph - ph * (Math.log10(ms) - ylo) / (yhi - ylo);
      d.append(i == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f,%.1f", px, py));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
            d,
            colour,
            dash == null ? "" : " stroke-dasharray=\"" + dash + "\""));
  }

  private static String line(double x1, double y1, double x2, double y2, String c, String dash) {
    return String.format(
        Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>\n",
        x1,
        y1,
        x2,
        y2,
        c,
        dash == null ? "" : " stroke-width=\"2\" stroke-dasharray=\"" + dash + "\"");
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
