package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The route table is the single definition of the HTTP API's routes: every {@link Route} must be in
 * the reference's route list (docs/reference/http-api.md "Routes"), and every row of the list must
 * be a route.
 */
class RouteTableDocTest {
  private static final Path DOC = Path.of("docs", "reference", "http-api.md");

  /** A row of the route list: {@code | GET | `/v1/namespaces/{ns}` | 200 |}. */
  private static final Pattern ROW = Pattern.compile("^\\|\\s*([A-Z]+)\\s*\\|\\s*`([^`]+)`\\s*\\|");

  @Test
  void everyRouteIsInTheReferenceAndEveryListedRouteExists() throws IOException {
    Set<String> documented = documentedRoutes();
    Set<String> table = new LinkedHashSet<>();
    for (Route r : routeTable()) {
      table.add(r.method().name() + " " + r.template());
    }
    assertThat(documented).as("rows of the route list in " + DOC).isNotEmpty();
    assertThat(documented).as("routes missing from " + DOC).containsAll(table);
    assertThat(table).as("routes " + DOC + " lists that the table lacks").containsAll(documented);
  }

  /**
   * The "Route labels:" paragraph of the Metrics section names every route's metrics label, and
   * besides them only the labels of requests refused before a route was known.
   */
  @Test
  void everyRouteLabelIsDocumented() throws IOException {
    String doc = Files.readString(repoRoot().resolve(DOC));
    int at = doc.indexOf("Route labels:");
    assertThat(at).as("a 'Route labels:' paragraph in " + DOC).isGreaterThan(0);
    int end = doc.indexOf("\n\n", at);
    Set<String> documented = new LinkedHashSet<>();
    Matcher m = Pattern.compile("`([a-z_]+)`").matcher(doc.substring(at, end));
    while (m.find()) {
      documented.add(m.group(1));
    }
    Set<String> labels = new LinkedHashSet<>();
    for (Route r : routeTable()) {
      labels.add(r.name());
    }
    assertThat(documented).as("route labels in " + DOC).containsAll(labels);
    Set<String> extra = new LinkedHashSet<>(documented);
    extra.removeAll(labels);
    assertThat(extra).containsExactlyInAnyOrder("consumer", "unmatched", "rejected");
  }

  private static List<Route> routeTable() {
    return new Api(null, null, new HttpMetrics(), new Api.Limits(1, 1, 1, 1, 1, 1)).routes();
  }

  /** Method and path of each row under "## Routes", the query (`?zone=`) left out. */
  private static Set<String> documentedRoutes() throws IOException {
    List<String> lines = Files.readAllLines(repoRoot().resolve(DOC));
    Set<String> out = new LinkedHashSet<>();
    boolean in = false;
    for (String line : lines) {
      if (line.startsWith("## ")) {
        in = line.trim().equals("## Routes");
        continue;
      }
      Matcher m = ROW.matcher(line);
      if (in && m.find()) {
        String path = m.group(2);
        int q = path.indexOf('?');
        out.add(m.group(1) + " " + (q < 0 ? path : path.substring(0, q)));
      }
    }
    return out;
  }

  /** The nearest directory at or above the working directory (the module) holding the doc. */
  private static Path repoRoot() {
    List<Path> tried = new ArrayList<>();
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve(DOC))) {
        return d;
      }
      tried.add(d);
    }
    throw new AssertionError("no " + DOC + " at or above " + tried.get(0));
  }
}
