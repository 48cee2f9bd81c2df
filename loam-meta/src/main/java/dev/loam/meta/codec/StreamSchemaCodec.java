package dev.loam.meta.codec;

import dev.loam.meta.command.AddStreamSchema;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateArrowStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;

/**
 * The encodings of the arrow streams' schema commands (tags 44–45) and outcome (tag 30),
 * docs/formats/metastore-commands.md "Arrow stream schemas". {@link CommandCodec} and {@link
 * OutcomeCodec} frame them (version, tag, origin); this class writes and reads the bodies.
 */
final class StreamSchemaCodec {
  static final int TAG_CREATE_ARROW_STREAM = 44;
  static final int TAG_ADD_STREAM_SCHEMA = 45;

  static final int TAG_SCHEMA_ADDED = 30;

  private StreamSchemaCodec() {}

  /** True when {@code c} is a schema command. */
  static boolean isSchema(Command c) {
    return c instanceof CreateArrowStream || c instanceof AddStreamSchema;
  }

  /** The tag of a schema command. */
  static int tag(Command c) {
    return c instanceof CreateArrowStream ? TAG_CREATE_ARROW_STREAM : TAG_ADD_STREAM_SCHEMA;
  }

  /** The body of a schema command, after its origin. */
  static void writeBody(BinaryWriter w, Command command) {
    if (command instanceof CreateArrowStream c) {
      w.string(c.namespace()).string(c.name());
      CommandCodec.writeConfig(w, c.config());
      w.string(c.schemaJson());
    } else if (command instanceof AddStreamSchema c) {
      w.string(c.namespace()).string(c.name()).i32(c.expectedVersions()).string(c.schemaJson());
    }
  }

  /** The schema command of {@code tag}, its origin already read. */
  static Command readBody(BinaryReader r, int tag, Origin o) {
    if (tag == TAG_CREATE_ARROW_STREAM) {
      String ns = r.string("createArrowStream.namespace");
      String name = r.string("createArrowStream.name");
      var config = CommandCodec.readConfig(r, "createArrowStream.config");
      return new CreateArrowStream(o, ns, name, config, r.string("createArrowStream.schema"));
    }
    String ns = r.string("addStreamSchema.namespace");
    String name = r.string("addStreamSchema.name");
    int expected = r.i32("addStreamSchema.expectedVersions");
    return new AddStreamSchema(o, ns, name, expected, r.string("addStreamSchema.schema"));
  }

  /** True when {@code o} is a schema outcome. */
  static boolean isSchema(Outcome o) {
    return o instanceof Outcome.SchemaAdded;
  }

  static void write(BinaryWriter w, Outcome outcome) {
    Outcome.SchemaAdded o = (Outcome.SchemaAdded) outcome;
    w.u8(TAG_SCHEMA_ADDED).i64(o.streamId()).i32(o.version());
  }

  static Outcome read(BinaryReader r) {
    long streamId = r.i64("schemaAdded.streamId");
    int version = r.i32("schemaAdded.version");
    if (version < 2) {
      throw r.corrupt("schemaAdded.version", "an added version is at least 2 version=" + version);
    }
    return new Outcome.SchemaAdded(streamId, version);
  }
}
