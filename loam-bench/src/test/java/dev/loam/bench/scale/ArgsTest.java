package dev.loam.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class ArgsTest {
  @Property
  void aPositiveIntegerReadsBackAndAbsentNamesTakeTheDefault(
      @ForAll @IntRange(min = 1) int value, @ForAll @IntRange(min = 1) int otherwise) {
    Args a = Args.parse(new String[] {"partitions=" + value});
    assertThat(a.integer("partitions", otherwise)).isEqualTo(value);
    assertThat(a.integer("rounds", otherwise)).isEqualTo(otherwise);
    a.done();
  }

  @Property
  void underscoresGroupDigits(@ForAll @IntRange(min = 1_000, max = 999_999) int value) {
    String grouped = (value / 1000) + "_" + String.format("%03d", value % 1000);
    assertThat(Args.parse(new String[] {"n=" + grouped}).integer("n", 1)).isEqualTo(value);
  }

  @Property
  void anyWordEitherParsesOrFailsNamingWhatWasWrong(@ForAll("words") String word) {
    Args a;
    try {
      a = Args.parse(new String[] {word});
    } catch (IllegalArgumentException e) {
      assertThat(word.indexOf('=')).as("refused only without a name before '='").isLessThan(1);
      assertThat(e).hasMessageContaining(word);
      return;
    }
    String name = word.substring(0, word.indexOf('='));
    try {
      int v = a.integer(name, 7);
      assertThat(v).isPositive();
      assertThat(v)
          .as("the value read back is the value given")
          .isEqualTo(Integer.parseInt(word.substring(word.indexOf('=') + 1).replace("_", "")));
    } catch (IllegalArgumentException e) {
      assertThat(e).hasMessageContaining(name).hasMessageContaining("positive integer");
    }
  }

  @Provide
  Arbitrary<String> words() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(12).filter(s -> !s.isEmpty()),
        Arbitraries.strings()
            .alpha()
            .ofMinLength(1)
            .ofMaxLength(6)
            .flatMap(
                n ->
                    Arbitraries.oneOf(
                            Arbitraries.integers().map(Object::toString),
                            Arbitraries.strings().ofMaxLength(6))
                        .map(v -> n + "=" + v)));
  }

  @Property(tries = 50)
  void anUnknownOrRepeatedNameIsRefused(@ForAll @IntRange(min = 1) int value) {
    Args a = Args.parse(new String[] {"partitons=" + value});
    a.integer("partitions", 1);
    assertThatThrownBy(a::done)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown argument: partitons");
    assertThatThrownBy(() -> Args.parse(new String[] {"n=" + value, "n=" + value}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("given twice: n");
  }
}
