/**
 * The object-store SPI ({@link dev.loam.spi.store.ObjectStore}) and its failure types. Every
 * implementation runs the conformance kit {@code ObjectStoreContractTest} from loam-core's
 * test-jar.
 */
package dev.loam.spi.store;
