/**
 * loam-core's internals. The root holds the ground-floor pieces every subsystem shares (the
 * bucket's key scheme, the node's identity and components, the mapping of metastore rejections to
 * errors); the sub-packages hold one subsystem each: {@code node} over {@code write} and {@code
 * maintain}, those over {@code read} and {@code ownership}, those over this root. {@code
 * CoreLayeringTest} keeps the arrows pointing down.
 *
 * <p>Nothing outside loam-core may use these types except {@code dev.loam.core.runtime} (the build
 * bans it); the public API is {@code dev.loam.api}, {@code dev.loam.spi} and {@code
 * dev.loam.store}.
 */
package dev.loam.core;
