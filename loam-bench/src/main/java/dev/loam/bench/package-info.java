/**
 * JMH benchmarks of Loam's hot paths. Run them with {@code loam-bench/run.sh [JMH options]}; see
 * docs/operations/performance.md for the method and results.
 */
package dev.loam.bench;
