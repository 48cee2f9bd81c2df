/**
 * The object-store SPI ({@link dev.loam.spi.store.ObjectStore}) and its failure types. Every
 * implementation runs the conformance kit {@code dev.loam.store.tck.ObjectStoreContractTest} from
 * the {@code dev.loam:loam-store-tck} artifact.
 */
package dev.loam.spi.store;
