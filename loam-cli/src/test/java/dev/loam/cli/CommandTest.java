package dev.loam.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandTest {
  enum Mode {
    FAST,
    SAFE
  }

  final Command cmd = new Command("loam test", "A command for the tests.\nSecond line.");
  final Flag<Path> dir = cmd.required("--data-dir", "DIR", Values.path(), "where the data goes");
  final Flag<Integer> records =
      cmd.flag("--records", "N", Values.integer(0, 1000), 100, "records to append");
  final Flag<Integer> port =
      cmd.flag("--http-port|--port", "PORT", Values.port(true), 8080, "the HTTP port");
  final Flag<String> zone = cmd.optional("--zone", "Z", Values.text(), "none", "the zone");
  final Flag<Boolean> kill = cmd.toggle("--kill-leader", "crash the leader mid-run");
  final Flag<Mode> mode =
      cmd.flag("--mode", "M", Values.enumValue(Mode.class), Mode.SAFE, "how to go");
  final Flag<Duration> duration =
      cmd.flag("--duration", "D", Values.duration(), Duration.ofSeconds(20), "how long");

  @Test
  void parsesEveryFormAndFallsBackToTheDefaults() {
    ParsedArgs a = cmd.parse("--data-dir", "/d", "--records=7", "--port", "0", "--kill-leader");
    assertThat(a.help()).isFalse();
    assertThat(a.get(dir)).isEqualTo(Path.of("/d"));
    assertThat(a.get(records)).isEqualTo(7);
    assertThat(a.get(port)).isZero();
    assertThat(a.get(kill)).isTrue();
    assertThat(a.get(zone)).isNull();
    assertThat(a.given(zone)).isFalse();
    assertThat(a.get(mode)).isEqualTo(Mode.SAFE);
    assertThat(a.get(duration)).isEqualTo(Duration.ofSeconds(20));
    assertThat(a.givenFlags()).containsExactlyInAnyOrder(dir, records, port, kill);

    ParsedArgs b = cmd.parse("--data-dir", "/d", "--mode", "fast", "--duration", "1.5s");
    assertThat(b.get(kill)).isFalse();
    assertThat(b.get(mode)).isEqualTo(Mode.FAST);
    assertThat(b.get(duration)).isEqualTo(Duration.ofMillis(1500));
    assertThat(b.get(records)).isEqualTo(100);
  }

  @Test
  void aBadValueNamesTheFlagAndTheValue() {
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--records", "abc"))
        .isInstanceOf(UsageException.class)
        .hasMessage("--records: not an integer: abc")
        .satisfies(e -> assertThat(((UsageException) e).flag()).isEqualTo("--records"));
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--records", "1001"))
        .hasMessage("--records: not in 0..1000: 1001");
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--port", "65536"))
        .hasMessage("--http-port: not in 0..65535: 65536");
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--mode", "slow"))
        .hasMessage("--mode: not one of fast, safe: slow");
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--duration", "soon"))
        .hasMessage("--duration: not a duration such as 500ms, 20s or 1m: soon");
  }

  @Test
  void refusesUnknownRepeatedMissingAndStrayArguments() {
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--recrods", "5"))
        .hasMessage("--recrods: unknown option (loam test --help lists the options)");
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--records", "1", "--records", "2"))
        .hasMessage("--records: given twice");
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--port", "1", "--http-port", "2"))
        .hasMessage("--http-port: given twice");
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--records"))
        .hasMessage("--records: missing value N");
    assertThatThrownBy(() -> cmd.parse("--records", "5"))
        .hasMessage("--data-dir: required (where the data goes)");
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "extra"))
        .hasMessage("unexpected argument extra (flags start with --)")
        .satisfies(e -> assertThat(((UsageException) e).flag()).isNull());
    assertThatThrownBy(() -> cmd.parse("--data-dir", "/d", "--kill-leader=yes"))
        .hasMessage("--kill-leader: takes no value, got yes");
  }

  @Test
  void helpWinsOverEveryOtherCheck() {
    assertThat(cmd.parse("--records", "abc", "--help").help()).isTrue();
    assertThat(cmd.parse("-h").help()).isTrue();
  }

  @Test
  void theHelpListsEveryFlagOnOneLineWithItsDefaultAndMeaning() {
    List<String> lines = cmd.help().lines().toList();
    assertThat(lines.get(0)).isEqualTo("usage: loam test [options]");
    assertThat(lines).contains("  A command for the tests.", "  Second line.");
    for (Flag<?> f : cmd.flags()) {
      assertThat(lines)
          .filteredOn(l -> l.startsWith("  " + f.name() + " ") || l.equals("  " + f.name()))
          .singleElement()
          .satisfies(l -> assertThat(l).contains(f.help()));
    }
    assertThat(lines)
        .anyMatch(l -> l.matches("  --data-dir DIR +where the data goes \\(required\\)"))
        .anyMatch(l -> l.matches("  --records N +records to append \\(default: 100\\)"))
        .anyMatch(l -> l.matches("  --zone Z +the zone \\(default: none\\)"))
        .anyMatch(l -> l.matches("  --kill-leader +crash the leader mid-run \\(default: off\\)"))
        .anyMatch(l -> l.matches("  --mode M +how to go \\(default: safe\\)"))
        .anyMatch(l -> l.contains("--http-port PORT") && l.contains("[also --port]"))
        .anyMatch(l -> l.matches("  -h, --help +print this help and exit"));
  }

  @Test
  void aCommandRefusesBadDeclarations() {
    assertThatThrownBy(() -> cmd.toggle("--records", "again"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("--records twice");
    assertThatThrownBy(() -> cmd.toggle("records", "no dashes"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cmd.toggle("--two-lines", "a\nb"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cmd.toggle("--help", "taken"))
        .isInstanceOf(IllegalStateException.class);
    assertThat(cmd.flag("--port")).containsSame(port);
    assertThat(cmd.flag("--nope")).isEmpty();
  }
}
