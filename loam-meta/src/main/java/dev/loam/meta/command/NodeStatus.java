package dev.loam.meta.command;

/**
 * A registered node's liveness (ownership-and-routing.txt "Node identity"): {@code live} until it
 * is declared dead ({@link ExpireNode}) or leaves ({@link DeregisterNode}); {@code renewedAtMillis}
 * is the metastore clock at its last {@link RenewNode}, or its epoch (its start time) if it never
 * renewed.
 */
public record NodeStatus(String nodeId, long epoch, boolean live, long renewedAtMillis) {}
