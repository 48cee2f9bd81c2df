package dev.loam.meta.command;

/**
 * The proposer leaves the cluster (graceful shutdown, after its streams were transferred away): it
 * is no longer live, the streams it still owns are closed, and it must register again to propose
 * anything.
 */
public record DeregisterNode(Origin origin) implements Command {}
