package dev.loam.dependencytests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * loam-bom manages what loam-parent manages: every published module at the project version, and
 * every third-party version (import or pin) the modules are built with, except the build's test
 * libraries and Micrometer (whose version a host's framework manages).
 */
class BomAlignmentTest {
  /** Parent-managed artifacts a host does not get from the BOM, and why. */
  private static final Set<String> PARENT_ONLY =
      Set.of(
          // Test libraries of the Loam build.
          "org.junit:junit-bom:pom",
          "net.jqwik:jqwik:jar",
          "org.assertj:assertj-core:jar",
          "org.slf4j:slf4j-simple:jar",
          "com.code-intelligence:jazzer-junit:jar",
          // The host's (or Spring Boot's) Micrometer wins; loam-micrometer needs only 1.x.
          "io.micrometer:micrometer-core:jar",
          "io.micrometer:micrometer-registry-prometheus:jar");

  private static Path root;

  @BeforeAll
  static void root() {
    root = Path.of(System.getProperty("loam.root")).toAbsolutePath().normalize();
  }

  @Test
  void theBomManagesEveryThirdPartyVersionOfTheParentAtTheSameVersion() throws Exception {
    Map<String, String> parent = managed(root.resolve("pom.xml"));
    Map<String, String> bom = managed(root.resolve("loam-bom/pom.xml"));
    Map<String, String> expected = new TreeMap<>();
    parent.forEach(
        (k, v) -> {
          if (!k.startsWith("dev.loam:") && !PARENT_ONLY.contains(k)) {
            expected.put(k, v);
          }
        });
    Map<String, String> thirdParty = new TreeMap<>();
    bom.forEach(
        (k, v) -> {
          if (!k.startsWith("dev.loam:")) {
            thirdParty.put(k, v);
          }
        });
    assertThat(thirdParty).isEqualTo(expected);
  }

  @Test
  void theBomListsEveryPublishedModuleAtTheProjectVersion() throws Exception {
    Map<String, String> bom = managed(root.resolve("loam-bom/pom.xml"));
    String version = System.getProperty("loam.version");
    Map<String, String> expected = new TreeMap<>();
    for (String m : LocalRepository.publishedModules(root)) {
      if (!LocalRepository.POM_ONLY.contains(m)) {
        expected.put("dev.loam:" + m + ":jar", version);
      }
    }
    Map<String, String> loam = new TreeMap<>();
    bom.forEach(
        (k, v) -> {
          if (k.startsWith("dev.loam:")) {
            loam.put(k, v);
          }
        });
    assertThat(loam).isEqualTo(expected);
  }

  /** groupId:artifactId:type to version of a POM's dependencyManagement, properties resolved. */
  private static Map<String, String> managed(Path pom) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    Document doc = f.newDocumentBuilder().parse(pom.toFile());
    Element project = doc.getDocumentElement();
    Map<String, String> props = new TreeMap<>();
    Element properties = child(project, "properties");
    if (properties != null) {
      NodeList ps = properties.getChildNodes();
      for (int i = 0; i < ps.getLength(); i++) {
        if (ps.item(i) instanceof Element e) {
          props.put(e.getTagName(), e.getTextContent().trim());
        }
      }
    }
    props.put("project.version", text(project, "version"));
    Map<String, String> out = new TreeMap<>();
    Element deps = child(child(project, "dependencyManagement"), "dependencies");
    NodeList ds = deps.getElementsByTagName("dependency");
    for (int i = 0; i < ds.getLength(); i++) {
      Element d = (Element) ds.item(i);
      String type = text(d, "type") == null ? "jar" : text(d, "type");
      out.put(
          text(d, "groupId") + ":" + text(d, "artifactId") + ":" + type,
          resolve(text(d, "version"), props));
    }
    return out;
  }

  private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

  private static String resolve(String v, Map<String, String> props) {
    Matcher m = PROPERTY.matcher(v);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String value = props.get(m.group(1));
      assertThat(value).as("property %s", m.group(1)).isNotNull();
      m.appendReplacement(sb, Matcher.quoteReplacement(value));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  private static Element child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }
}
