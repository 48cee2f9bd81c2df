package dev.loam.meta.command;

import java.util.Objects;

/**
 * Takes or renews the writer lease of {@code source} on one target partition
 * (docs/design/changelog.md): no lease or an expired one starts a new term (epoch + 1, the source
 * position kept); the holder's own live lease is renewed at the same epoch, so a retry after an
 * unknown outcome is harmless; another holder's live lease is refused with {@code CONFLICT}.
 *
 * @param streamId the target stream's id
 * @param source 1..{@link #MAX_SOURCE_LENGTH} characters of {@code [A-Za-z0-9._-]}
 * @param holder 1..{@link #MAX_HOLDER_LENGTH} characters
 * @param leaseMillis 1..{@link #MAX_LEASE_MILLIS}
 */
public record AcquireWriterLease(
    Origin origin, long streamId, int partition, String source, String holder, long leaseMillis)
    implements Command {
  /** The longest lease: a writer that vanished blocks its source at most this long. */
  public static final long MAX_LEASE_MILLIS = 3_600_000L;

  /** Longest holder id, in UTF-16 chars. */
  public static final int MAX_HOLDER_LENGTH = 249;

  /** Longest source name, in chars (a stream name's limit). */
  public static final int MAX_SOURCE_LENGTH = 249;

  public AcquireWriterLease {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(holder, "holder");
  }
}
