package dev.loam.meta.command;

/**
 * Records a new key-encryption key of a namespace, which seals its new chunks from then on: gives a
 * namespace its first key (at creation or later; earlier data stays as written) or rotates it
 * (older keys keep opening what they sealed). The node writes the wrapped key file first, so a
 * recorded key always exists. Refused with NOT_FOUND for an unknown namespace, INVALID for a
 * malformed ULID, one not newer than the current key or a namespace at {@link
 * NamespaceKeys#MAX_KEYS}, and CONFLICT once the namespace's master key was destroyed. The current
 * key again is an idempotent success.
 *
 * @param keyUlid the new key's ULID (the name of its key file)
 */
public record AddNamespaceKey(Origin origin, String namespace, String keyUlid) implements Command {}
