package dev.loam.examples.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Keeps a {@link FaultInjectingStore}'s rates equal to a fault file's contents ({@link
 * FaultRates#parse}), re-read on a fixed interval: a chaos test switches a running node's faults on
 * and off by rewriting the file (atomically: write elsewhere, then rename), no control route
 * needed. An absent file means {@link FaultRates#OFF}. A file that does not parse leaves the rates
 * as they were and is reported once (to {@code notices}) until it changes.
 */
public final class FaultFile implements AutoCloseable {
  private final Path file;
  private final FaultInjectingStore store;
  private final Consumer<String> notices;
  private final ScheduledFuture<?> poll;
  private String lastProblem;

  private FaultFile(
      Path file,
      FaultInjectingStore store,
      Consumer<String> notices,
      ScheduledExecutorService scheduler,
      Duration interval) {
    this.file = file;
    this.store = store;
    this.notices = notices;
    this.poll =
        scheduler.scheduleWithFixedDelay(
            this::reloadQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Reads {@code file} once now (an invalid file is refused with an {@link
   * IllegalArgumentException} naming it, so a typo stops the node at start), applies it to {@code
   * store}, then re-reads it every {@code interval} on {@code scheduler} until closed. Changes of
   * the rates are reported to {@code notices}.
   */
  public static FaultFile watch(
      Path file,
      FaultInjectingStore store,
      Consumer<String> notices,
      ScheduledExecutorService scheduler,
      Duration interval) {
    Objects.requireNonNull(file, "file");
    FaultRates first;
    try {
      first = read(file);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("--fault-file " + file + ": " + e.getMessage(), e);
    }
    apply(store, first, notices, file);
    return new FaultFile(file, store, notices, scheduler, interval);
  }

  /**
   * The {@code --fault-file} value check, run while the command line is parsed: the file's
   * directory must exist (a typo there would leave the faults off for good), and a file that is
   * there must be valid. An absent file in an existing directory is no faults until a test writes
   * it.
   */
  public static Path checkPath(String text) {
    Path file = Path.of(text);
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("no such directory " + dir + ": " + text);
    }
    try {
      read(file);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + ": " + text, e);
    }
    return file;
  }

  /** Re-reads the file now (also done on every interval). */
  public synchronized void reload() throws IOException {
    FaultRates r = read(file);
    lastProblem = null;
    apply(store, r, notices, file);
  }

  private synchronized void reloadQuietly() {
    try {
      reload();
    } catch (IOException | RuntimeException e) {
      String problem = e.getMessage();
      if (!Objects.equals(problem, lastProblem)) {
        lastProblem = problem;
        notices.accept(
            "fault file " + file + " ignored, rates unchanged (" + store.rates() + "): " + problem);
      }
    }
  }

  private static void apply(
      FaultInjectingStore store, FaultRates r, Consumer<String> notices, Path file) {
    if (!r.equals(store.rates())) {
      store.setRates(r);
      notices.accept(
          "faults "
              + (r.isOff() ? "off" : "on")
              + " write_unavailable="
              + r.writeUnavailable()
              + " write_outcome_unknown="
              + r.writeOutcomeUnknown()
              + " read_unavailable="
              + r.readUnavailable()
              + " slow_ms="
              + r.slowMillis()
              + " file="
              + file);
    }
  }

  private static FaultRates read(Path file) throws IOException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return FaultRates.OFF;
    }
    return FaultRates.parse(text);
  }

  /** Stops re-reading; the store keeps its current rates. */
  @Override
  public void close() {
    poll.cancel(false);
  }
}
