/**
 * The quorum class in the deterministic simulation (docs/design/simulation.md "Quorum streams"): a
 * small Raft model per journal on the simulated scheduler and network ({@link
 * dev.loam.sim.quorum.SimRaft}), each replica applying committed entries to the real journal state
 * machine, behind the real node host of {@code loam-journal} ({@link
 * dev.loam.sim.quorum.SimJournals}).
 */
package dev.loam.sim.quorum;
