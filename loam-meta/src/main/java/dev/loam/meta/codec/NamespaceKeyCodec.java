package dev.loam.meta.codec;

import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.DestroyNamespaceKeys;
import dev.loam.meta.command.NamespaceKeys;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import java.util.ArrayList;
import java.util.List;

/**
 * The encodings of the namespace key commands (tags 38–39), their outcome (tag 27) and {@link
 * NamespaceKeys}, which the snapshot's version 10 section shares
 * (docs/formats/metastore-commands.md, metastore-snapshot.md). {@link CommandCodec} and {@link
 * OutcomeCodec} frame them (version, tag, origin); this class writes and reads the bodies.
 */
public final class NamespaceKeyCodec {
  static final int TAG_ADD_NAMESPACE_KEY = 38;
  static final int TAG_DESTROY_NAMESPACE_KEYS = 39;

  static final int TAG_NAMESPACE_KEYS_CHANGED = 27;

  /** The smallest encoded {@link NamespaceKeys}: an empty name, no key, the flag. */
  public static final int MIN_NAMESPACE_KEYS_BYTES = 4 + 4 + 1;

  private NamespaceKeyCodec() {}

  /** True when {@code c} is a namespace key command. */
  static boolean isKeyCommand(Command c) {
    return c instanceof AddNamespaceKey || c instanceof DestroyNamespaceKeys;
  }

  /** The tag of a namespace key command. */
  static int tag(Command c) {
    return c instanceof AddNamespaceKey ? TAG_ADD_NAMESPACE_KEY : TAG_DESTROY_NAMESPACE_KEYS;
  }

  /** The body of a namespace key command, after its origin. */
  static void writeBody(BinaryWriter w, Command command) {
    if (command instanceof AddNamespaceKey c) {
      w.string(c.namespace()).string(c.keyUlid());
    } else if (command instanceof DestroyNamespaceKeys c) {
      w.string(c.namespace());
    }
  }

  /** The namespace key command of {@code tag}, its origin already read. */
  static Command readBody(BinaryReader r, int tag, Origin o) {
    if (tag == TAG_ADD_NAMESPACE_KEY) {
      String ns = r.string("addNamespaceKey.namespace");
      return new AddNamespaceKey(o, ns, r.string("addNamespaceKey.keyUlid"));
    }
    return new DestroyNamespaceKeys(o, r.string("destroyNamespaceKeys.namespace"));
  }

  /**
   * Writes a namespace's keys: {@code str} namespace, {@code count} n, n × {@code str} ULID, {@code
   * bool} destroyed.
   */
  public static void writeKeys(BinaryWriter w, NamespaceKeys k) {
    w.string(k.namespace()).i32(k.keyUlids().size());
    for (String u : k.keyUlids()) {
      w.string(u);
    }
    w.bool(k.destroyed());
  }

  /** Reads {@link #writeKeys}' layout; {@code field} prefixes the field names. */
  public static NamespaceKeys readKeys(BinaryReader r, String field) {
    String ns = r.string(field + ".namespace");
    int n = r.count(field + ".keys.count", 4);
    List<String> ulids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ulids.add(r.string(field + ".keyUlid"));
    }
    return new NamespaceKeys(ns, ulids, r.bool(field + ".destroyed"));
  }

  /** True when {@code o} is the namespace key outcome. */
  static boolean isKeyOutcome(Outcome o) {
    return o instanceof Outcome.NamespaceKeysChanged;
  }

  /** The namespace key outcome, its tag included. */
  static void write(BinaryWriter w, Outcome outcome) {
    Outcome.NamespaceKeysChanged o = (Outcome.NamespaceKeysChanged) outcome;
    w.u8(TAG_NAMESPACE_KEYS_CHANGED);
    writeKeys(w, o.keys());
    w.bool(o.changed());
  }

  /** The namespace key outcome, its tag already read. */
  static Outcome read(BinaryReader r) {
    NamespaceKeys k = readKeys(r, "namespaceKeysChanged");
    return new Outcome.NamespaceKeysChanged(k, r.bool("namespaceKeysChanged.changed"));
  }
}
