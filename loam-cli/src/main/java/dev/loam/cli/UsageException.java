package dev.loam.cli;

/**
 * A command line that cannot be run: an unknown flag, a missing or unparseable value, a required
 * flag not given, or flags that contradict each other. The message names the flag first ({@code
 * --records: not an integer: abc}); launchers print it and exit with status 2.
 */
public final class UsageException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String flag;

  public UsageException(String flag, String problem) {
    super(flag == null ? problem : flag + ": " + problem);
    this.flag = flag;
  }

  public UsageException(String flag, String problem, Throwable cause) {
    this(flag, problem);
    initCause(cause);
  }

  /** The flag at fault, or null when the problem is not one flag's (a stray argument). */
  public String flag() {
    return flag;
  }
}
