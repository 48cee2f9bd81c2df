/**
 * Kafka consumer groups (docs/design/consumer-groups.md): the classic group protocol's coordinator
 * ({@link dev.loam.kafka.internal.group.GroupCoordinator}, one {@link
 * dev.loam.kafka.internal.group.ClassicGroup} per group this node coordinates) and the handlers of
 * the group APIs. Membership lives here, in memory; generations and committed offsets live in the
 * metastore through the {@code Log} group calls, fenced by the coordinator epoch.
 */
package dev.loam.kafka.internal.group;
