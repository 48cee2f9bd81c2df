package dev.loam.meta.command;

/** A registered node: stable id, current epoch, advertised address, capacity slots and zone. */
public record NodeInfo(String id, long epoch, String advertisedAddress, int slots, String zone) {}
