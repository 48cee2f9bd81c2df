/**
 * Pieces shared by Loam's Apache Ratis servers (the metastore's replica in {@code
 * dev.loam.meta.ratis} and the journal servers of {@code loam-journal}), public only so that both
 * modules can use them. Not API: their signatures change without notice.
 */
package dev.loam.meta.ratis.internal;
