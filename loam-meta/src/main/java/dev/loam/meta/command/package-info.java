/**
 * Metastore commands, their outcomes, and the values they carry. Everything here is a plain value
 * with a binary encoding in {@code dev.loam.meta.codec}.
 */
package dev.loam.meta.command;
