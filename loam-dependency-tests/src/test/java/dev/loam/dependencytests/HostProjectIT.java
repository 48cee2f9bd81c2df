package dev.loam.dependencytests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Builds small host projects that depend only on this build's artifacts, with every Loam module
 * declared in different orders, and runs each one's test: its own dependency tree converges (the
 * enforcer's dependencyConvergence), it has one Jackson and one Netty, and a node with the HTTP API
 * started from it answers admin, produce and fetch requests. A host that declares a storage module
 * before loam-http once got Jackson 2.18 core with 2.22 databind, and an HTTP server that answered
 * every request with an empty reply.
 *
 * <p>Each project is built by {@code mvn -B} against the local repository of the running build,
 * into which {@link LocalRepository#stage} first copies this build's jars and POMs, as {@code mvn
 * install} would. Online, as a host's build is: without the BOM a host resolves the versions its
 * dependencies' own POMs name (Azure's Jackson 2.18, say), which this build never downloads, so an
 * offline build passed only on a machine whose local repository happened to hold them.
 */
class HostProjectIT {
  /** The storage modules, which bring the object stores' SDKs (and with GCS, gRPC). */
  private static final List<String> STORAGE =
      List.of("loam-storage-gcs", "loam-storage-azure", "loam-storage-s3");

  /**
   * Every other module loam-bom publishes except loam-core, which each project names last: read
   * from the BOM, so a new module is in the host projects from the day it is published.
   */
  private static List<String> others;

  /**
   * The modules of the project that names them before the storage modules without the BOM. Not
   * every module: without the BOM a host's resolver reads every version any module's POM asks for,
   * also those mediation then drops, and with all of them first it asks for versions (the
   * jackson-datatype-jsr310 2.21.0 arrow-vector asks for, for one) that no module uses. Hosts are
   * told to import the BOM.
   */
  private static final List<String> FIRST_WITHOUT_BOM =
      List.of("loam-http", "loam-kafka", "loam-client", "loam-micrometer", "loam-sim", "loam-cli");

  private static Path root;
  private static Path work;

  @BeforeAll
  static void stage() throws IOException {
    root = Path.of(System.getProperty("loam.root")).toAbsolutePath().normalize();
    work = Path.of(System.getProperty("loam.work")).toAbsolutePath().normalize();
    LocalRepository.stage(root, localRepo(), System.getProperty("loam.version"));
    String bom = Files.readString(root.resolve("loam-bom/pom.xml"));
    Matcher m =
        Pattern.compile(
                "<groupId>dev\\.loam</groupId>\\s*<artifactId>(loam-[a-z0-9-]+)</artifactId>")
            .matcher(bom);
    List<String> modules = new ArrayList<>();
    while (m.find()) {
      String a = m.group(1);
      if (!STORAGE.contains(a)
          && !a.equals("loam-core")
          && !a.equals("loam-bom")
          && !modules.contains(a)) {
        modules.add(a);
      }
    }
    // The hosts' own modules; the rest (loam-wal, loam-meta...) come with them as well.
    assertThat(modules)
        .as("modules loam-bom publishes")
        .contains("loam-http", "loam-kafka", "loam-otlp", "loam-grpc", "loam-cloudevents");
    others = List.copyOf(modules);
  }

  @Test
  void storageModulesBeforeLoamHttpWithoutTheBom() throws Exception {
    build("storage-first", false, concat(STORAGE, others, List.of("loam-core")));
  }

  @Test
  void loamHttpBeforeTheStorageModulesWithoutTheBom() throws Exception {
    build("http-first", false, concat(FIRST_WITHOUT_BOM, STORAGE, List.of("loam-core")));
  }

  @Test
  void storageModulesFirstWithTheBomAndNoVersions() throws Exception {
    build("bom-storage-first", true, concat(STORAGE, others, List.of("loam-core")));
  }

  private static void build(String name, boolean bom, List<String> modules) throws Exception {
    Path dir = work.resolve(name);
    Path test = dir.resolve("src/test/java/example/host/HostServesHttpTest.java");
    Files.createDirectories(test.getParent());
    String version = System.getProperty("loam.version");
    String deps =
        modules.stream()
            .distinct()
            .map(
                a ->
                    "    <dependency>\n      <groupId>dev.loam</groupId>\n      <artifactId>"
                        + a
                        + "</artifactId>\n"
                        + (bom ? "" : "      <version>" + version + "</version>\n")
                        + "    </dependency>")
            .collect(Collectors.joining("\n"));
    String management =
        bom
            ? "      <dependency>\n        <groupId>dev.loam</groupId>\n"
                + "        <artifactId>loam-bom</artifactId>\n        <version>"
                + version
                + "</version>\n        <type>pom</type>\n        <scope>import</scope>\n"
                + "      </dependency>"
            : "";
    String pom =
        resource("host-project/pom.xml")
            .replace("@NAME@", name)
            .replace("@MANAGEMENT@", management)
            .replace("@DEPENDENCIES@", deps)
            .replace("@JUNIT_VERSION@", System.getProperty("loam.junit.version"))
            .replace("@ENFORCER_VERSION@", System.getProperty("loam.enforcer.version"))
            .replace("@ENFORCER_SKIP@", Boolean.toString(!bom))
            .replace("@BOM@", Boolean.toString(bom))
            .replace("@COMPILER_VERSION@", System.getProperty("loam.compiler.version"))
            .replace("@SUREFIRE_VERSION@", System.getProperty("loam.surefire.version"));
    Files.writeString(dir.resolve("pom.xml"), pom);
    Files.writeString(test, resource("host-project/HostServesHttpTest.java"));

    Path log = dir.resolve("build.log");
    Process p =
        new ProcessBuilder(
                mvn(),
                "-B",
                "-q",
                "-Dmaven.repo.local=" + localRepo(),
                // validate (the enforcer), compile and test; no packaging plugin is needed.
                "test")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    assertThat(done).as("host build %s finished within 5 min; its output:%n%s", name, out).isTrue();
    assertThat(p.exitValue()).as("host build %s exit status; its output:%n%s", name, out).isZero();
    Path report = dir.resolve("target/surefire-reports/TEST-example.host.HostServesHttpTest.xml");
    assertThat(Files.readString(report))
        .as("host test report of %s", name)
        .contains("tests=\"2\"")
        .contains("failures=\"0\"")
        .contains("errors=\"0\"")
        .contains("skipped=\"0\"");
  }

  private static Path localRepo() {
    return Path.of(System.getProperty("loam.localRepository"));
  }

  /** The Maven launcher of the running build, else mvn from the PATH. */
  private static String mvn() {
    String home = System.getProperty("loam.maven.home");
    if (home != null && !home.isBlank() && Files.isExecutable(Path.of(home, "bin", "mvn"))) {
      return Path.of(home, "bin", "mvn").toString();
    }
    return "mvn";
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = HostProjectIT.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("test resource missing: " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @SafeVarargs
  private static List<String> concat(List<String>... parts) {
    return java.util.Arrays.stream(parts).flatMap(List::stream).toList();
  }
}
