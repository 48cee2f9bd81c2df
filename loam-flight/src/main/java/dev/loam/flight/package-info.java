/**
 * Arrow Flight for arrow streams (docs/reference/arrow.md "Arrow Flight"): {@link
 * dev.loam.flight.LoamFlightServer} serves ListFlights, GetFlightInfo, GetSchema and DoGet, and
 * {@link dev.loam.flight.FlightTicket} is the DoGet ticket.
 */
package dev.loam.flight;
