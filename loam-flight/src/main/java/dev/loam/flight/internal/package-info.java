/** The Flight listener's gRPC service and its API-key access checks; not an API. */
package dev.loam.flight.internal;
