package dev.loam.meta.command;

/**
 * Renews the proposer's registration: its {@link NodeStatus#renewedAtMillis()} becomes the
 * metastore clock. A node declared dead is refused (UNKNOWN_NODE) and must register again.
 */
public record RenewNode(Origin origin) implements Command {}
