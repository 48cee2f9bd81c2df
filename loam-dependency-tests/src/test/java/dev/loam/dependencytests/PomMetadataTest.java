package dev.loam.dependencytests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The project metadata a published POM carries (what Maven Central requires and what a user's tools
 * link to): loam-parent and loam-bom (which has no parent) name the same project address, licence,
 * developers, organization, source repository and issue tracker; loam-parent's modules inherit them
 * unchanged (no "/artifactId" appended to an address, no module-level override).
 */
class PomMetadataTest {
  static final String PROJECT = "https://github.com/loam-dev/loam";

  private static Path root;

  @BeforeAll
  static void root() {
    root = Path.of(System.getProperty("loam.root")).toAbsolutePath().normalize();
  }

  @Test
  void theParentAndTheBomNameTheSameProject() throws Exception {
    for (String pom : List.of("pom.xml", "loam-bom/pom.xml")) {
      Element p = project(root.resolve(pom));
      assertThat(text(p, "url")).as(pom).isEqualTo(PROJECT);
      assertThat(text(p, "inceptionYear")).as(pom).isEqualTo("2026");
      Element license = child(child(p, "licenses"), "license");
      assertThat(text(license, "name")).as(pom).isEqualTo("Apache License, Version 2.0");
      assertThat(text(license, "url"))
          .as(pom)
          .isEqualTo("https://www.apache.org/licenses/LICENSE-2.0.txt");
      Element scm = child(p, "scm");
      assertThat(text(scm, "url")).as(pom).isEqualTo(PROJECT);
      assertThat(text(scm, "connection")).as(pom).isEqualTo("scm:git:" + PROJECT + ".git");
      assertThat(text(scm, "developerConnection"))
          .as(pom)
          .isEqualTo("scm:git:git@github.com:loam-dev/loam.git");
      assertThat(text(child(p, "issueManagement"), "url")).as(pom).isEqualTo(PROJECT + "/issues");
      assertThat(text(child(p, "organization"), "url"))
          .as(pom)
          .isEqualTo("https://github.com/loam-dev");
      Element developer = child(child(p, "developers"), "developer");
      assertThat(text(developer, "url")).as(pom).isEqualTo(PROJECT);
      assertThat(text(developer, "organizationUrl"))
          .as(pom)
          .isEqualTo("https://github.com/loam-dev");
    }
  }

  @Test
  void modulesInheritTheAddressesUnchanged() throws Exception {
    Element parent = project(root.resolve("pom.xml"));
    assertThat(parent.getAttribute("child.project.url.inherit.append.path")).isEqualTo("false");
    Element scm = child(parent, "scm");
    for (String a :
        List.of(
            "child.scm.connection.inherit.append.path",
            "child.scm.developerConnection.inherit.append.path",
            "child.scm.url.inherit.append.path")) {
      assertThat(scm.getAttribute(a)).as(a).isEqualTo("false");
    }
    List<String> overriding = new ArrayList<>();
    for (String m : LocalRepository.publishedModules(root)) {
      if (LocalRepository.POM_ONLY.contains(m)) {
        continue;
      }
      Element p = project(root.resolve(m).resolve("pom.xml"));
      for (String e : List.of("url", "scm", "licenses", "developers", "issueManagement")) {
        if (has(p, e)) {
          overriding.add(m + " <" + e + ">");
        }
      }
    }
    assertThat(overriding).as("modules that override the project metadata").isEmpty();
  }

  private static Element project(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(pom.toFile())
        .getDocumentElement();
  }

  private static Element child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    throw new AssertionError("no <" + name + "> in <" + parent.getTagName() + ">");
  }

  private static boolean has(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  private static String text(Element parent, String name) {
    return child(parent, name).getTextContent().trim();
  }
}
