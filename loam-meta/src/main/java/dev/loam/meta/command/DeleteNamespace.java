package dev.loam.meta.command;

/** Deletes an empty namespace; refused with NOT_FOUND, or CONFLICT while it still holds streams. */
public record DeleteNamespace(Origin origin, String name) implements Command {}
