package dev.loam.http.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The example conventions {@link HttpApiExamplesIT} relies on: parsing and matching. */
class DocExamplesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String mismatch(String shown, String actual) throws Exception {
    JsonNode a = JSON.readTree(actual);
    return DocExamples.mismatch(DocExamples.parsePattern(shown), a, "$");
  }

  @Test
  void shownMembersMustMatchAndUnshownOnesNeedAnEllipsis() throws Exception {
    assertThat(mismatch("{\"a\":1,\"b\":\"x\"}", "{\"a\":1,\"b\":\"x\"}")).isNull();
    assertThat(mismatch("{\"a\":1}", "{\"a\":2}")).contains("$.a is 2, shown 1");
    assertThat(mismatch("{\"a\":1}", "{\"a\":1,\"b\":2}")).contains("$.b is in the answer");
    assertThat(mismatch("{\"a\":1,...}", "{\"a\":1,\"b\":2}")).isNull();
    assertThat(mismatch("{...,\"b\":2}", "{\"a\":1}")).contains("$.b is missing");
  }

  @Test
  void variesMatchesAnyValueButNotAMissingMember() throws Exception {
    assertThat(mismatch("{\"e\":<varies>,\"t\":\"<varies>\"}", "{\"e\":5,\"t\":\"9\"}")).isNull();
    assertThat(mismatch("{\"e\":<varies>}", "{}")).contains("$.e is missing");
  }

  @Test
  void anEllipsisInAnArrayMatchesAnyRunOfElements() throws Exception {
    assertThat(mismatch("[1, ...]", "[1,2,3]")).isNull();
    assertThat(mismatch("[..., 3]", "[1,2,3]")).isNull();
    assertThat(mismatch("[..., 4]", "[1,2,3]")).isNotNull();
    assertThat(mismatch("[1,2]", "[1,2,3]")).isNotNull();
    assertThat(mismatch("[{\"p\":0,...}, ...]", "[{\"p\":0,\"q\":1},{\"p\":1}]")).isNull();
  }

  @Test
  void commandsStatusesAnswersVariablesAndSkippedBlocksAreRead() {
    List<String> page =
        List.of(
            "```sh",
            "C=$B/x",
            "curl -s -X POST $B/v1/a -H \"$J\" -d '{",
            "  \"k\":1}'                # 201, Location: /v1/a",
            "{\"k\":1}",
            "curl -s $B/v1/b",
            "# 404 not_found: \"no such b\"",
            "```",
            "<!-- example: not run (needs a second node) -->",
            "```sh",
            "curl -s $B/v1/c",
            "```");
    List<DocExamples.Example> ex = DocExamples.parse(page);
    assertThat(ex).hasSize(3);
    assertThat(ex.get(0).isAssignment()).isTrue();
    assertThat(ex.get(0).variable()).isEqualTo("C");
    assertThat(ex.get(1).command()).endsWith("\"k\":1}'").doesNotContain("Location");
    assertThat(ex.get(1).expectedStatus()).isEqualTo(201);
    assertThat(ex.get(1).shown()).containsExactly("{\"k\":1}");
    assertThat(ex.get(2).expectedStatus()).isEqualTo(404);
    assertThat(ex.get(2).shown()).isEmpty();
  }

  @Test
  void textAnswersMatchLineByLineInOrder() {
    String metrics = "# TYPE a counter\na{r=\"x\"} 3\nb 1\n";
    assertThat(DocExamples.textMismatch(List.of("# TYPE a counter", "...", "b 1"), metrics))
        .isNull();
    assertThat(DocExamples.textMismatch(List.of("a{r=\"x\"} <varies>"), metrics)).isNull();
    assertThat(DocExamples.textMismatch(List.of("b 1", "a{r=\"x\"} 3"), metrics)).isNotNull();
  }
}
