package dev.loam.api;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * A node's plain settings (STYLE.md §7): values with units, validated here. Components (store,
 * metastore, clock, executors) are passed to {@link LoamNode.Builder} separately.
 *
 * @param advertisedAddress the address other nodes and clients use to reach this node
 * @param zone the node's availability zone (empty if unknown)
 * @param slots capacity weight for placement (1 by default)
 * @param standardFlushInterval how long standard-class appends wait to share a WAL object (250 ms)
 * @param expressFlushInterval the same for express (5 ms)
 * @param walObjectMaxBytes a WAL object is flushed early once it reaches this size (8 MiB)
 * @param maxObjectsInFlight WAL objects of one class being written or committed at once (4); the
 *     objects whose PUTs are done are proposed together, oldest first, in one proposal
 * @param maxCommitsInFlight commit proposals of one class with the metastore at once (1, one at a
 *     time; never more than maxObjectsInFlight in effect): above 1, a proposal goes out while
 *     earlier ones are unanswered only if it writes no partition they write, and every append hears
 *     its answer in submission order (docs/design/write-path.md "Several commits in flight")
 * @param commitBudget no new PUT or commit attempt starts this long after the object's ULID time
 *     (60 s, stream-engine.txt §3)
 * @param maxBufferedBytes appends beyond this many unflushed bytes fail UNAVAILABLE (backpressure)
 * @param tailCacheBytes bytes of recently written batches kept in memory for fetches
 * @param maxFetchWait the longest long-poll a fetch may ask for
 * @param maxWaitingFetches long-polls beyond this many fail UNAVAILABLE
 * @param retryBackoffInitial first delay before retrying a PUT or commit, doubled up to 1 s
 * @param maintenanceInterval how often the node runs retention, the segmenter and GC (30 s)
 * @param segmentThresholdBytes a partition is segmented once a run of its WAL-backed index entries
 *     holds this many bytes (64 MiB)
 * @param segmentMaxBytes the largest segment's data; also the segmenter's memory bound (256 MiB)
 * @param segmentEntryMaxBytes index entries pointing into a segment cover at most this many bytes;
 *     the default ({@link Integer#MAX_VALUE}) makes one entry per segment, so the metastore holds
 *     about one entry per segment (a fetch reads a large entry by ~1 MiB blocks located with the
 *     segment's batch index)
 * @param gcGracePeriod retired objects are deleted this long after retirement (10 min), so fetches
 *     that read the index before a swap or trim still find their bytes
 * @param orphanMinAge objects never referenced are deleted once their ULID time is this old (1 h);
 *     must exceed the metastore's stale-commit window (15 min) so no late commit or swap can
 *     reference a deleted object
 * @param diskCacheBytes bytes of fetched object ranges kept in {@link #diskCacheDir} (0, the
 *     default, keeps none: an embedded host opts into disk use)
 * @param diskCacheDir the node's own directory for the disk cache, or null when it is off
 * @param walReadAheadBytes memory for recently read WAL objects (64 MiB): a WAL GET for a fetch
 *     reads the whole object and keeps it, so fetches of the object's other partitions need no GET
 *     (docs/design/read-path.md "Read tiers"); 0 turns read-ahead off
 */
public record NodeSettings(
    String advertisedAddress,
    String zone,
    int slots,
    Duration standardFlushInterval,
    Duration expressFlushInterval,
    int walObjectMaxBytes,
    int maxObjectsInFlight,
    int maxCommitsInFlight,
    Duration commitBudget,
    long maxBufferedBytes,
    long tailCacheBytes,
    Duration maxFetchWait,
    int maxWaitingFetches,
    Duration retryBackoffInitial,
    Duration maintenanceInterval,
    long segmentThresholdBytes,
    long segmentMaxBytes,
    int segmentEntryMaxBytes,
    Duration gcGracePeriod,
    Duration orphanMinAge,
    long diskCacheBytes,
    Path diskCacheDir,
    long walReadAheadBytes) {

  /** The default of {@link #walReadAheadBytes}. */
  public static final long DEFAULT_WAL_READ_AHEAD_BYTES = 64L << 20;

  public NodeSettings {
    Objects.requireNonNull(advertisedAddress, "advertisedAddress");
    Objects.requireNonNull(zone, "zone");
    require(slots >= 1, "slots", slots);
    require(positive(standardFlushInterval), "standardFlushInterval", standardFlushInterval);
    require(positive(expressFlushInterval), "expressFlushInterval", expressFlushInterval);
    require(walObjectMaxBytes >= 1024, "walObjectMaxBytes", walObjectMaxBytes);
    require(
        maxObjectsInFlight >= 1 && maxObjectsInFlight <= 64,
        "maxObjectsInFlight",
        maxObjectsInFlight);
    require(
        maxCommitsInFlight >= 1 && maxCommitsInFlight <= 64,
        "maxCommitsInFlight",
        maxCommitsInFlight);
    require(positive(commitBudget), "commitBudget", commitBudget);
    require(maxBufferedBytes >= walObjectMaxBytes, "maxBufferedBytes", maxBufferedBytes);
    require(tailCacheBytes >= 0, "tailCacheBytes", tailCacheBytes);
    require(positive(maxFetchWait), "maxFetchWait", maxFetchWait);
    require(maxWaitingFetches >= 1, "maxWaitingFetches", maxWaitingFetches);
    require(positive(retryBackoffInitial), "retryBackoffInitial", retryBackoffInitial);
    require(positive(maintenanceInterval), "maintenanceInterval", maintenanceInterval);
    require(segmentThresholdBytes >= 1, "segmentThresholdBytes", segmentThresholdBytes);
    require(
        segmentMaxBytes >= segmentThresholdBytes && segmentMaxBytes <= (1L << 30),
        "segmentMaxBytes",
        segmentMaxBytes);
    require(segmentEntryMaxBytes >= 1024, "segmentEntryMaxBytes", segmentEntryMaxBytes);
    require(gcGracePeriod != null && !gcGracePeriod.isNegative(), "gcGracePeriod", gcGracePeriod);
    require(positive(orphanMinAge), "orphanMinAge", orphanMinAge);
    require(diskCacheBytes >= 0, "diskCacheBytes", diskCacheBytes);
    require(diskCacheBytes == 0 || diskCacheDir != null, "diskCacheDir", diskCacheDir);
    require(walReadAheadBytes >= 0, "walReadAheadBytes", walReadAheadBytes);
  }

  /** The spec's defaults (DESIGN.md "Defaults from the spec"). */
  public static NodeSettings defaults() {
    return builder().build();
  }

  /** A builder that starts from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * The same settings for a node advertised at {@code address} in {@code zone} with {@code slots}.
   */
  public NodeSettings withIdentity(String address, String zone, int slots) {
    return toBuilder().advertisedAddress(address).zone(zone).slots(slots).build();
  }

  /** These settings with both flush intervals set to {@code interval}. */
  public NodeSettings withFlushInterval(Duration interval) {
    return toBuilder().standardFlushInterval(interval).expressFlushInterval(interval).build();
  }

  /**
   * These settings with another WAL object size limit and number of objects written at once. The
   * spec's 8 MiB suits stores that charge per request; on a local disk, where a PUT costs a write
   * and an fsync but no fee, 1 to 2 MiB objects let a burst of appends be written as several
   * objects in parallel and raise throughput (docs/operations/performance.md "WAL object size on
   * the filesystem store"). The write buffer ({@link #maxBufferedBytes}) is raised to one object if
   * it is smaller.
   */
  public NodeSettings withWalObjects(int maxBytes, int maxInFlight) {
    return toBuilder()
        .walObjectMaxBytes(maxBytes)
        .maxObjectsInFlight(maxInFlight)
        .maxBufferedBytes(Math.max(maxBufferedBytes, maxBytes))
        .build();
  }

  /** These settings with another number of commit proposals in flight per class. */
  public NodeSettings withCommitsInFlight(int maxCommits) {
    return toBuilder().maxCommitsInFlight(maxCommits).build();
  }

  /** These settings with another commit budget. */
  public NodeSettings withCommitBudget(Duration budget) {
    return toBuilder().commitBudget(budget).build();
  }

  /** These settings with another tail-cache size (0 disables it). */
  public NodeSettings withTailCacheBytes(long bytes) {
    return toBuilder().tailCacheBytes(bytes).build();
  }

  /**
   * These settings with a local disk cache of at most {@code bytes} in {@code dir} (0 turns it
   * off). The directory is this node's alone; it survives restarts.
   */
  public NodeSettings withDiskCache(Path dir, long bytes) {
    return toBuilder().diskCacheDir(dir).diskCacheBytes(bytes).build();
  }

  /** These settings with {@code bytes} of memory for WAL objects read ahead (0 turns it off). */
  public NodeSettings withWalReadAheadBytes(long bytes) {
    return toBuilder().walReadAheadBytes(bytes).build();
  }

  /**
   * Builds {@link NodeSettings} one named value at a time, starting from the defaults or from
   * existing settings; {@link #build()} validates them all at once (the record's constructor). Each
   * setter's meaning is the record component of the same name.
   */
  public static final class Builder {
    private String advertisedAddress = "";
    private String zone = "";
    private int slots = 1;
    private Duration standardFlushInterval = Duration.ofMillis(250);
    private Duration expressFlushInterval = Duration.ofMillis(5);
    private int walObjectMaxBytes = 8 << 20;
    private int maxObjectsInFlight = 4;
    private int maxCommitsInFlight = 1;
    private Duration commitBudget = Duration.ofSeconds(60);
    private long maxBufferedBytes = 64L << 20;
    private long tailCacheBytes = 64L << 20;
    private Duration maxFetchWait = Duration.ofSeconds(60);
    private int maxWaitingFetches = 100_000;
    private Duration retryBackoffInitial = Duration.ofMillis(10);
    private Duration maintenanceInterval = Duration.ofSeconds(30);
    private long segmentThresholdBytes = 64L << 20;
    private long segmentMaxBytes = 256L << 20;
    private int segmentEntryMaxBytes = Integer.MAX_VALUE;
    private Duration gcGracePeriod = Duration.ofMinutes(10);
    private Duration orphanMinAge = Duration.ofHours(1);
    private long diskCacheBytes = 0;
    private Path diskCacheDir = null;
    private long walReadAheadBytes = DEFAULT_WAL_READ_AHEAD_BYTES;

    private Builder() {}

    private Builder(NodeSettings s) {
      this.advertisedAddress = s.advertisedAddress;
      this.zone = s.zone;
      this.slots = s.slots;
      this.standardFlushInterval = s.standardFlushInterval;
      this.expressFlushInterval = s.expressFlushInterval;
      this.walObjectMaxBytes = s.walObjectMaxBytes;
      this.maxObjectsInFlight = s.maxObjectsInFlight;
      this.maxCommitsInFlight = s.maxCommitsInFlight;
      this.commitBudget = s.commitBudget;
      this.maxBufferedBytes = s.maxBufferedBytes;
      this.tailCacheBytes = s.tailCacheBytes;
      this.maxFetchWait = s.maxFetchWait;
      this.maxWaitingFetches = s.maxWaitingFetches;
      this.retryBackoffInitial = s.retryBackoffInitial;
      this.maintenanceInterval = s.maintenanceInterval;
      this.segmentThresholdBytes = s.segmentThresholdBytes;
      this.segmentMaxBytes = s.segmentMaxBytes;
      this.segmentEntryMaxBytes = s.segmentEntryMaxBytes;
      this.gcGracePeriod = s.gcGracePeriod;
      this.orphanMinAge = s.orphanMinAge;
      this.diskCacheBytes = s.diskCacheBytes;
      this.diskCacheDir = s.diskCacheDir;
      this.walReadAheadBytes = s.walReadAheadBytes;
    }

    /** Sets {@link NodeSettings#advertisedAddress()}. */
    public Builder advertisedAddress(String advertisedAddress) {
      this.advertisedAddress = advertisedAddress;
      return this;
    }

    /** Sets {@link NodeSettings#zone()}. */
    public Builder zone(String zone) {
      this.zone = zone;
      return this;
    }

    /** Sets {@link NodeSettings#slots()}. */
    public Builder slots(int slots) {
      this.slots = slots;
      return this;
    }

    /** Sets {@link NodeSettings#standardFlushInterval()}. */
    public Builder standardFlushInterval(Duration standardFlushInterval) {
      this.standardFlushInterval = standardFlushInterval;
      return this;
    }

    /** Sets {@link NodeSettings#expressFlushInterval()}. */
    public Builder expressFlushInterval(Duration expressFlushInterval) {
      this.expressFlushInterval = expressFlushInterval;
      return this;
    }

    /** Sets {@link NodeSettings#walObjectMaxBytes()}. */
    public Builder walObjectMaxBytes(int walObjectMaxBytes) {
      this.walObjectMaxBytes = walObjectMaxBytes;
      return this;
    }

    /** Sets {@link NodeSettings#maxObjectsInFlight()}. */
    public Builder maxObjectsInFlight(int maxObjectsInFlight) {
      this.maxObjectsInFlight = maxObjectsInFlight;
      return this;
    }

    /** Sets {@link NodeSettings#maxCommitsInFlight()}. */
    public Builder maxCommitsInFlight(int maxCommitsInFlight) {
      this.maxCommitsInFlight = maxCommitsInFlight;
      return this;
    }

    /** Sets {@link NodeSettings#commitBudget()}. */
    public Builder commitBudget(Duration commitBudget) {
      this.commitBudget = commitBudget;
      return this;
    }

    /** Sets {@link NodeSettings#maxBufferedBytes()}. */
    public Builder maxBufferedBytes(long maxBufferedBytes) {
      this.maxBufferedBytes = maxBufferedBytes;
      return this;
    }

    /** Sets {@link NodeSettings#tailCacheBytes()}. */
    public Builder tailCacheBytes(long tailCacheBytes) {
      this.tailCacheBytes = tailCacheBytes;
      return this;
    }

    /** Sets {@link NodeSettings#maxFetchWait()}. */
    public Builder maxFetchWait(Duration maxFetchWait) {
      this.maxFetchWait = maxFetchWait;
      return this;
    }

    /** Sets {@link NodeSettings#maxWaitingFetches()}. */
    public Builder maxWaitingFetches(int maxWaitingFetches) {
      this.maxWaitingFetches = maxWaitingFetches;
      return this;
    }

    /** Sets {@link NodeSettings#retryBackoffInitial()}. */
    public Builder retryBackoffInitial(Duration retryBackoffInitial) {
      this.retryBackoffInitial = retryBackoffInitial;
      return this;
    }

    /** Sets {@link NodeSettings#maintenanceInterval()}. */
    public Builder maintenanceInterval(Duration maintenanceInterval) {
      this.maintenanceInterval = maintenanceInterval;
      return this;
    }

    /** Sets {@link NodeSettings#segmentThresholdBytes()}. */
    public Builder segmentThresholdBytes(long segmentThresholdBytes) {
      this.segmentThresholdBytes = segmentThresholdBytes;
      return this;
    }

    /** Sets {@link NodeSettings#segmentMaxBytes()}. */
    public Builder segmentMaxBytes(long segmentMaxBytes) {
      this.segmentMaxBytes = segmentMaxBytes;
      return this;
    }

    /** Sets {@link NodeSettings#segmentEntryMaxBytes()}. */
    public Builder segmentEntryMaxBytes(int segmentEntryMaxBytes) {
      this.segmentEntryMaxBytes = segmentEntryMaxBytes;
      return this;
    }

    /** Sets {@link NodeSettings#gcGracePeriod()}. */
    public Builder gcGracePeriod(Duration gcGracePeriod) {
      this.gcGracePeriod = gcGracePeriod;
      return this;
    }

    /** Sets {@link NodeSettings#orphanMinAge()}. */
    public Builder orphanMinAge(Duration orphanMinAge) {
      this.orphanMinAge = orphanMinAge;
      return this;
    }

    /** Sets {@link NodeSettings#diskCacheBytes()}. */
    public Builder diskCacheBytes(long diskCacheBytes) {
      this.diskCacheBytes = diskCacheBytes;
      return this;
    }

    /** Sets {@link NodeSettings#diskCacheDir()}. */
    public Builder diskCacheDir(Path diskCacheDir) {
      this.diskCacheDir = diskCacheDir;
      return this;
    }

    /** Sets {@link NodeSettings#walReadAheadBytes()}. */
    public Builder walReadAheadBytes(long walReadAheadBytes) {
      this.walReadAheadBytes = walReadAheadBytes;
      return this;
    }

    /** The settings, validated; fails naming the first invalid setting. */
    public NodeSettings build() {
      return new NodeSettings(
          advertisedAddress,
          zone,
          slots,
          standardFlushInterval,
          expressFlushInterval,
          walObjectMaxBytes,
          maxObjectsInFlight,
          maxCommitsInFlight,
          commitBudget,
          maxBufferedBytes,
          tailCacheBytes,
          maxFetchWait,
          maxWaitingFetches,
          retryBackoffInitial,
          maintenanceInterval,
          segmentThresholdBytes,
          segmentMaxBytes,
          segmentEntryMaxBytes,
          gcGracePeriod,
          orphanMinAge,
          diskCacheBytes,
          diskCacheDir,
          walReadAheadBytes);
    }
  }

  private static boolean positive(Duration d) {
    return d != null && !d.isNegative() && !d.isZero();
  }

  private static void require(boolean ok, String name, Object value) {
    if (!ok) {
      throw new IllegalArgumentException("invalid node setting " + name + "=" + value);
    }
  }
}
