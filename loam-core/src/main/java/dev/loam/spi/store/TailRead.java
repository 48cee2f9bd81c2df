package dev.loam.spi.store;

/** The last bytes of an object and its total size, from {@link ObjectStore#getTail}. */
public record TailRead(byte[] bytes, long objectSize) {}
