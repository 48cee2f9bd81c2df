package dev.loam.meta.command;

/**
 * Revokes an API key: from the apply on, every replica refuses it. The key stays listed, revoked,
 * with the metastore clock of its revocation. NOT_FOUND for an unknown id; revoking a revoked key
 * changes nothing and answers it as it is.
 */
public record RevokeApiKey(Origin origin, String id) implements Command {}
