/**
 * The object stores that ship with loam-core ({@code memory} for tests and simulation, {@code fs}
 * for embedded use) and the helpers every {@link dev.loam.spi.store.ObjectStore} implementation
 * shares, such as the key rules in {@link dev.loam.store.ObjectKeys}.
 */
package dev.loam.store;
