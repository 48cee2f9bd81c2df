package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** Schema JSON parsing, its refusals, and the evolution rule. */
class StreamSchemaTest {
  static final String V1 =
      """
      {"fields":[
        {"name":"id","nullable":false,"type":{"name":"int","bitWidth":64,"isSigned":true},"children":[]},
        {"name":"name","nullable":true,"type":{"name":"utf8"},"children":[]}
      ]}""";

  static final String V2 =
      """
      {"fields":[
        {"name":"id","nullable":false,"type":{"name":"int","bitWidth":64,"isSigned":true},"children":[]},
        {"name":"name","nullable":true,"type":{"name":"utf8"},"children":[]},
        {"name":"score","nullable":true,"type":{"name":"floatingpoint","precision":"DOUBLE"},"children":[]}
      ]}""";

  @Test
  void parsesArrowSchemaJson() {
    StreamSchema s = StreamSchema.fromJson(V1);
    assertThat(s.types()).containsExactly(ColumnType.INT64, ColumnType.UTF8);
    assertThat(s.batchSchema().getFields())
        .extracting(f -> f.getName())
        .containsExactly("_key", "_timestamp", "id", "name");
    assertThat(StreamSchema.fromJson(s.toJson())).isEqualTo(s);
  }

  @Property(tries = 100)
  void jsonRoundTripsForRandomSchemas(@ForAll long seed) {
    StreamSchema s = ArrowArbitraries.schema(new Random(seed));
    String json = s.toJson();
    assertThat(StreamSchema.fromJson(json)).isEqualTo(s);
    assertThat(StreamSchema.fromJson(json).toJson()).isEqualTo(json);
  }

  @Property(tries = 300)
  void garbageIsATypedError(@ForAll String junk) {
    try {
      StreamSchema.fromJson(junk);
    } catch (LoamException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
    }
  }

  @Test
  void refusesWhatItDoesNotSupport() {
    assertInvalid("not json", "arrow schema json invalid");
    assertInvalid("{\"fields\":[]}", "no fields");
    assertInvalid(
        "{\"fields\":[{\"name\":\"u\",\"nullable\":true,\"type\":{\"name\":\"int\",\"bitWidth\":32,\"isSigned\":false},\"children\":[]}]}",
        "field=u: unsupported type");
    assertInvalid(
        "{\"fields\":[{\"name\":\"_key\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}",
        "field=_key: the name is a system column's");
    assertInvalid(
        "{\"fields\":[{\"name\":\"a\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]},"
            + "{\"name\":\"a\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}",
        "field=a: duplicate name");
    assertInvalid(
        "{\"fields\":[{\"name\":\"l\",\"nullable\":true,\"type\":{\"name\":\"list\"},\"children\":["
            + "{\"name\":\"item\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}]}",
        "field=l: nested fields are not supported");
    assertInvalid(
        "{\"fields\":[{\"name\":\"t\",\"nullable\":true,\"type\":{\"name\":\"timestamp\",\"unit\":\"SECOND\",\"timezone\":null},\"children\":[]}]}",
        "field=t: unsupported type");
  }

  private static void assertInvalid(String json, String message) {
    assertThatThrownBy(() -> StreamSchema.fromJson(json))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining(message);
  }

  @Test
  void evolutionAddsNullableFieldsAndKeepsEveryVersion() {
    SchemaHistory h = SchemaHistory.of(StreamSchema.fromJson(V1));
    SchemaHistory h2 = h.evolve(StreamSchema.fromJson(V2));
    assertThat(h2.latestVersion()).isEqualTo(2);
    assertThat(h2.version(1)).isEqualTo(StreamSchema.fromJson(V1));
    assertThat(h2.version(2)).isEqualTo(StreamSchema.fromJson(V2));
  }

  @Test
  void incompatibleChangesAreRefusedNamingTheField() {
    StreamSchema v1 = StreamSchema.fromJson(V1);
    assertEvolveRefused(v1, V1, "adds no field");
    assertEvolveRefused(
        v1,
        "{\"fields\":[{\"name\":\"id\",\"nullable\":false,\"type\":{\"name\":\"utf8\"},\"children\":[]},"
            + "{\"name\":\"name\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}",
        "field=id: type changed");
    assertEvolveRefused(
        v1,
        "{\"fields\":[{\"name\":\"id\",\"nullable\":false,\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]}]}",
        "field=name: removed");
    assertEvolveRefused(
        v1,
        "{\"fields\":[{\"name\":\"name\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]},"
            + "{\"name\":\"id\",\"nullable\":false,\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]}]}",
        "field=id: renamed, removed or moved");
    assertEvolveRefused(
        v1,
        "{\"fields\":[{\"name\":\"id\",\"nullable\":true,\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]},"
            + "{\"name\":\"name\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}",
        "field=id: nullability changed");
    assertEvolveRefused(
        v1,
        V2.replace("\"score\",\"nullable\":true", "\"score\",\"nullable\":false"),
        "field=score: an added field must be nullable");
  }

  private static void assertEvolveRefused(StreamSchema from, String to, String message) {
    SchemaHistory h = SchemaHistory.of(from);
    assertThatThrownBy(() -> h.evolve(StreamSchema.fromJson(to)))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining(message);
  }
}
