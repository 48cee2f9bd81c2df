package dev.loam.meta.command;

/** Creates a namespace; refused with ALREADY_EXISTS when the name is taken. */
public record CreateNamespace(Origin origin, String name) implements Command {}
