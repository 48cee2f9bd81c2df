package dev.loam.cloudevents;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Generated valid events for the codec's property tests: every context attribute optional (the
 * required ones present), in a shuffled order, extensions of every type, times with offsets and
 * fractions, and data of every form a format can carry.
 */
final class EventArbitraries {
  private EventArbitraries() {}

  /** Strings of any Unicode (surrogate pairs, controls, quotes), never unpaired surrogates. */
  static Arbitrary<String> text() {
    return Arbitraries.oneOf(
            Arbitraries.strings().ofMinLength(1).ofMaxLength(12),
            Arbitraries.strings().all().ofMinLength(1).ofMaxLength(12),
            Arbitraries.of("/shop/web", "urn:x:1", "a b\"c%d", "é€😀", "\t\n", "x"))
        .filter(EventValidator::isValidUnicode);
  }

  static Arbitrary<String> names() {
    return Arbitraries.strings()
        .withChars("abcdefghijklmnopqrstuvwxyz0123456789")
        .ofMinLength(1)
        .ofMaxLength(24)
        .filter(n -> !EventValidator.CONTEXT_ATTRIBUTES.contains(n))
        .filter(n -> !n.equals(CloudEvent.PARTITIONKEY));
  }

  static Arbitrary<String> times() {
    Arbitrary<String> date =
        Combinators.combine(
                Arbitraries.integers().between(1970, 9999),
                Arbitraries.integers().between(1, 12),
                Arbitraries.integers().between(1, 28),
                Arbitraries.integers().between(0, 23),
                Arbitraries.integers().between(0, 59),
                Arbitraries.integers().between(0, 59))
            .as(
                (y, mo, d, h, mi, s) ->
                    String.format("%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s));
    Arbitrary<String> fraction =
        Arbitraries.oneOf(
            Arbitraries.just(""),
            Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(9).map(f -> "." + f));
    Arbitrary<String> zone = Arbitraries.of("Z", "z", "+02:00", "-05:30", "+00:00");
    return Combinators.combine(date, fraction, zone).as((a, b, c) -> a + b + c);
  }

  static Arbitrary<Attribute> extension(String name) {
    return Arbitraries.oneOf(
        text().map(t -> new Attribute(name, AttributeType.STRING, t)),
        Arbitraries.integers().map(i -> new Attribute(name, AttributeType.INTEGER, i.toString())),
        Arbitraries.of("2.5", "-0.125", "1e3", "12345678901", "1E-7", "-9223372036854775809")
            .map(t -> new Attribute(name, AttributeType.NUMBER, t)),
        Arbitraries.of("true", "false").map(t -> new Attribute(name, AttributeType.BOOLEAN, t)),
        Arbitraries.of("https://example.com/a?b=c", "urn:isbn:0451450523")
            .map(t -> new Attribute(name, AttributeType.URI, t)),
        Arbitraries.of("/relative/ref", "#frag", "../up")
            .map(t -> new Attribute(name, AttributeType.URI_REF, t)),
        times()
            .map(t -> Rfc3339.canonical(Rfc3339.parse(t)))
            .map(t -> new Attribute(name, AttributeType.TIMESTAMP, t)),
        Arbitraries.bytes()
            .array(byte[].class)
            .ofMaxSize(16)
            .map(
                b ->
                    new Attribute(
                        name, AttributeType.BINARY, Base64.getEncoder().encodeToString(b))));
  }

  /** The data of an event, consistent with its content type (null: no data). */
  private record Data(String contentType, byte[] bytes) {}

  private static Arbitrary<Data> data() {
    Arbitrary<byte[]> binary = Arbitraries.bytes().array(byte[].class).ofMaxSize(32);
    Arbitrary<String> json =
        Arbitraries.of(
            "{\"sku\":\"A-7\",\"qty\":2}",
            "[1, 2.50, {\"a\" : null}]",
            "\"just a string\"",
            "42",
            "true",
            "{ \"nested\" : { \"x\" : [ ] } }");
    return Arbitraries.oneOf(
        Arbitraries.just(new Data(null, null)),
        json.map(j -> new Data(null, j.getBytes(StandardCharsets.UTF_8))),
        json.map(j -> new Data("application/json", j.getBytes(StandardCharsets.UTF_8))),
        json.map(j -> new Data("application/vnd.x+json", j.getBytes(StandardCharsets.UTF_8))),
        text().map(t -> new Data("text/plain; charset=utf-8", t.getBytes(StandardCharsets.UTF_8))),
        binary.map(b -> new Data("application/octet-stream", b)),
        Arbitraries.just(new Data("application/json", null)));
  }

  /** Valid events. */
  static Arbitrary<CloudEvent> events() {
    Arbitrary<Map<String, Attribute>> extensions =
        names()
            .list()
            .ofMaxSize(6)
            .uniqueElements()
            .flatMap(
                ns -> {
                  List<Arbitrary<Attribute>> as = new ArrayList<>();
                  for (String n : ns) {
                    as.add(extension(n));
                  }
                  return Combinators.combine(as)
                      .as(
                          list -> {
                            Map<String, Attribute> m = new LinkedHashMap<>();
                            for (Attribute a : list) {
                              m.put(a.name(), a);
                            }
                            return m;
                          });
                });
    Arbitrary<List<Attribute>> optional =
        Combinators.combine(
                times().optional(), text().optional(), text().optional(), text().optional())
            .as(
                (time, subject, schema, pk) -> {
                  List<Attribute> out = new ArrayList<>();
                  time.ifPresent(t -> out.add(Attribute.string(CloudEvent.TIME, t)));
                  subject.ifPresent(t -> out.add(Attribute.string(CloudEvent.SUBJECT, t)));
                  schema.ifPresent(t -> out.add(Attribute.string(CloudEvent.DATASCHEMA, t)));
                  pk.ifPresent(t -> out.add(Attribute.string(CloudEvent.PARTITIONKEY, t)));
                  return out;
                });
    return Combinators.combine(text(), text(), text(), optional, extensions, data())
        .as(
            (id, source, type, opt, ext, data) -> {
              List<Attribute> attrs = new ArrayList<>();
              attrs.add(Attribute.string(CloudEvent.SPECVERSION, "1.0"));
              attrs.add(Attribute.string(CloudEvent.ID, id));
              attrs.add(Attribute.string(CloudEvent.SOURCE, source));
              attrs.add(Attribute.string(CloudEvent.TYPE, type));
              attrs.addAll(opt);
              if (data.contentType() != null) {
                attrs.add(Attribute.string(CloudEvent.DATACONTENTTYPE, data.contentType()));
              }
              attrs.addAll(ext.values());
              return new CloudEvent(attrs, data.bytes());
            })
        .flatMap(e -> Arbitraries.shuffle(e.attributes()).map(e::withAttributes));
  }
}
