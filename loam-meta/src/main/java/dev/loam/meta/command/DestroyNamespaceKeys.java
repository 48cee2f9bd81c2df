package dev.loam.meta.command;

/**
 * Records that a namespace's master key is destroyed (crypto-shredding, docs/security.md): its
 * appends are refused from then on and nothing seals under its keys again; its sealed chunks and
 * segments no longer open anywhere once the KMS has destroyed the master key. Proposed before the
 * KMS destroy, so no node seals under a key the operator has asked to destroy. Refused with
 * NOT_FOUND for an unknown namespace and INVALID for one without a key; again on a destroyed
 * namespace an idempotent success that changes nothing.
 */
public record DestroyNamespaceKeys(Origin origin, String namespace) implements Command {}
