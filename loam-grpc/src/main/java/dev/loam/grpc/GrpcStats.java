package dev.loam.grpc;

/**
 * Counters of a {@link LoamGrpcServer} since it started.
 *
 * @param calls calls started, every method
 * @param failedCalls calls that ended with a status other than OK
 * @param openSubscriptions Subscribe calls open now
 * @param subscribeMessages Subscribe messages handed to gRPC
 * @param subscribeRecords records delivered by Subscribe
 * @param subscribeHeldBytes bytes of records fetched for open subscriptions and not yet handed to
 *     gRPC (at most one message per subscription): what flow control keeps bounded
 * @param subscribeFetches long-poll fetches the subscriptions made (each answers one message, or
 *     none when its wait ended with no record)
 */
public record GrpcStats(
    long calls,
    long failedCalls,
    long openSubscriptions,
    long subscribeMessages,
    long subscribeRecords,
    long subscribeHeldBytes,
    long subscribeFetches) {}
