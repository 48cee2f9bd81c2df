package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.error.LoamException;
import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.NamespaceKeyCodec;
import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.DestroyNamespaceKeys;
import dev.loam.meta.command.NamespaceKeys;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.wal.ulid.Ulid;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The namespaces' key-encryption keys: the {@link AddNamespaceKey} and {@link DestroyNamespaceKeys}
 * rules and the version 10 snapshot section (docs/formats/metastore-snapshot.md). Only namespaces
 * that were ever given a key have a record; deleting a namespace drops it.
 */
final class NamespaceKeyTable {
  private final Catalog catalog;
  private final TreeMap<String, NamespaceKeys> keys = new TreeMap<>();

  NamespaceKeyTable(Catalog catalog) {
    this.catalog = catalog;
  }

  NamespaceKeys get(String namespace) {
    return namespace == null ? null : keys.get(namespace);
  }

  List<NamespaceKeys> all() {
    return List.copyOf(keys.values());
  }

  /** Whether any namespace has a key record: the snapshot needs version 10 to hold it. */
  boolean any() {
    return !keys.isEmpty();
  }

  Outcome add(AddNamespaceKey c) {
    String where = " namespace=" + c.namespace() + " keyUlid=" + shortened(c.keyUlid());
    if (c.namespace() == null || !catalog.namespaces().containsKey(c.namespace())) {
      return rejected(RejectReason.NOT_FOUND, "no such namespace" + where);
    }
    if (!isUlid(c.keyUlid())) {
      return rejected(
          RejectReason.INVALID, "a namespace key id must be a ULID (26 characters)" + where);
    }
    NamespaceKeys k = keys.get(c.namespace());
    if (k == null) {
      k = new NamespaceKeys(c.namespace(), List.of(), false);
    }
    if (k.destroyed()) {
      return rejected(RejectReason.CONFLICT, "the namespace's master key was destroyed" + where);
    }
    String current = k.currentUlid();
    if (c.keyUlid().equals(current)) {
      return new Outcome.NamespaceKeysChanged(k, false);
    }
    if (current != null && Ulid.parse(c.keyUlid()).compareTo(Ulid.parse(current)) <= 0) {
      return rejected(
          RejectReason.INVALID,
          "a new namespace key must be newer than the current one current=" + current + where);
    }
    if (k.keyUlids().size() >= NamespaceKeys.MAX_KEYS) {
      return rejected(
          RejectReason.INVALID,
          "a namespace holds at most " + NamespaceKeys.MAX_KEYS + " keys" + where);
    }
    List<String> ulids = new ArrayList<>(k.keyUlids());
    ulids.add(c.keyUlid());
    NamespaceKeys after = new NamespaceKeys(c.namespace(), ulids, false);
    keys.put(c.namespace(), after);
    return new Outcome.NamespaceKeysChanged(after, true);
  }

  Outcome destroy(DestroyNamespaceKeys c) {
    String where = " namespace=" + c.namespace();
    if (c.namespace() == null || !catalog.namespaces().containsKey(c.namespace())) {
      return rejected(RejectReason.NOT_FOUND, "no such namespace" + where);
    }
    NamespaceKeys k = keys.get(c.namespace());
    if (k == null) {
      return rejected(RejectReason.INVALID, "the namespace has no key to destroy" + where);
    }
    if (k.destroyed()) {
      return new Outcome.NamespaceKeysChanged(k, false);
    }
    NamespaceKeys after = new NamespaceKeys(k.namespace(), k.keyUlids(), true);
    keys.put(k.namespace(), after);
    return new Outcome.NamespaceKeysChanged(after, true);
  }

  /** A deleted namespace loses its record: one re-created under the name starts without keys. */
  void dropNamespace(String namespace) {
    keys.remove(namespace);
  }

  /** The canonical ULID spelling only, so each key has one name (and one key file). */
  static boolean isUlid(String s) {
    if (s == null || s.length() != 26) {
      return false;
    }
    try {
      return Ulid.parse(s).toString().equals(s);
    } catch (LoamException e) {
      return false;
    }
  }

  private static String shortened(String s) {
    return s == null || s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }

  /**
   * The version 10 section: {@code i32 count}, then each namespace's keys ({@link
   * NamespaceKeyCodec#writeKeys}) by namespace name.
   */
  void write(BinaryWriter w) {
    w.i32(keys.size());
    for (NamespaceKeys k : keys.values()) {
      NamespaceKeyCodec.writeKeys(w, k);
    }
  }

  /**
   * Reads {@link #write}'s section. Anything no writer produces is corruption: no record in version
   * 10 (written only when one exists; from version 11 on the section may be empty), an unsorted or
   * repeated namespace, one the catalog lacks, a record without a key, and keys that are not
   * canonical ULIDs in increasing order.
   */
  void read(BinaryReader r, int version) {
    int n = r.count("namespaceKeys.count", NamespaceKeyCodec.MIN_NAMESPACE_KEYS_BYTES);
    if (version == 10 && n < 1) {
      throw r.corrupt("namespaceKeys.count", "a version 10 snapshot must hold a namespace key");
    }
    String prev = null;
    for (int i = 0; i < n; i++) {
      NamespaceKeys k = NamespaceKeyCodec.readKeys(r, "namespaceKeys");
      if ((prev != null && prev.compareTo(k.namespace()) >= 0)
          || !catalog.namespaces().containsKey(k.namespace())) {
        throw r.corrupt(
            "namespaceKeys.namespace", "unsorted, duplicate or unknown namespace=" + k.namespace());
      }
      if (k.keyUlids().isEmpty() || k.keyUlids().size() > NamespaceKeys.MAX_KEYS) {
        throw r.corrupt(
            "namespaceKeys.keys.count",
            "a record holds 1.." + NamespaceKeys.MAX_KEYS + " keys namespace=" + k.namespace());
      }
      String before = null;
      for (String u : k.keyUlids()) {
        if (!isUlid(u) || (before != null && before.compareTo(u) >= 0)) {
          throw r.corrupt(
              "namespaceKeys.keyUlid",
              "not a ULID, or not increasing namespace=" + k.namespace() + " keyUlid=" + u);
        }
        before = u;
      }
      keys.put(k.namespace(), k);
      prev = k.namespace();
    }
  }
}
