/** An in-memory {@link dev.loam.spi.store.ObjectStore} with the same semantics as S3. */
package dev.loam.store.memory;
