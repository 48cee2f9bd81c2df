/**
 * Pieces of a {@code loam node} process that are not part of the HTTP API: the chaos-testing
 * object-store fault injector ({@link dev.loam.examples.fault.FaultInjectingStore}) and the fault
 * file that switches it at run time.
 */
package dev.loam.examples.fault;
