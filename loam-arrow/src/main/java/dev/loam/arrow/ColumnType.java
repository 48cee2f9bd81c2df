package dev.loam.arrow;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The Arrow types an arrow stream's columns may have (docs/reference/arrow.md "Types"), each with
 * the JSON form its values take in a record's value. Every type is flat, so a column's buffers are
 * contiguous in an IPC body and one byte range per column covers them.
 */
public enum ColumnType {
  BOOL,
  INT8,
  INT16,
  INT32,
  INT64,
  FLOAT32,
  FLOAT64,
  UTF8,
  BINARY,
  /** Days since 1970-01-01; JSON {@code "YYYY-MM-DD"}. */
  DATE,
  /** Epoch milliseconds; JSON integer. */
  TIMESTAMP_MS,
  /** Epoch microseconds; JSON integer. */
  TIMESTAMP_US,
  /** Epoch nanoseconds; JSON integer. */
  TIMESTAMP_NS;

  /**
   * The supported type an Arrow type is, or an INVALID error naming {@code field} and the type.
   *
   * @throws LoamException INVALID if the type is not one of the supported ones
   */
  public static ColumnType of(String field, ArrowType t) {
    ColumnType c = ofOrNull(t);
    if (c == null) {
      throw new LoamException(
          Kind.INVALID,
          "arrow schema field="
              + field
              + ": unsupported type "
              + t
              + " (supported: bool, signed int 8/16/32/64, float 32/64, utf8, binary, date(day),"
              + " timestamp(ms/us/ns) with no time zone or UTC)");
    }
    return c;
  }

  private static ColumnType ofOrNull(ArrowType t) {
    if (t instanceof ArrowType.Bool) {
      return BOOL;
    }
    if (t instanceof ArrowType.Int i) {
      if (!i.getIsSigned()) {
        return null;
      }
      return switch (i.getBitWidth()) {
        case 8 -> INT8;
        case 16 -> INT16;
        case 32 -> INT32;
        case 64 -> INT64;
        default -> null;
      };
    }
    if (t instanceof ArrowType.FloatingPoint f) {
      return switch (f.getPrecision()) {
        case SINGLE -> FLOAT32;
        case DOUBLE -> FLOAT64;
        default -> null;
      };
    }
    if (t instanceof ArrowType.Utf8) {
      return UTF8;
    }
    if (t instanceof ArrowType.Binary) {
      return BINARY;
    }
    if (t instanceof ArrowType.Date d) {
      return d.getUnit() == DateUnit.DAY ? DATE : null;
    }
    if (t instanceof ArrowType.Timestamp ts) {
      if (ts.getTimezone() != null && !ts.getTimezone().equals("UTC")) {
        return null;
      }
      return switch (ts.getUnit()) {
        case MILLISECOND -> TIMESTAMP_MS;
        case MICROSECOND -> TIMESTAMP_US;
        case NANOSECOND -> TIMESTAMP_NS;
        default -> null;
      };
    }
    return null;
  }

  /** An Arrow type of this kind (timestamps without a time zone). */
  public ArrowType arrowType() {
    return switch (this) {
      case BOOL -> ArrowType.Bool.INSTANCE;
      case INT8 -> new ArrowType.Int(8, true);
      case INT16 -> new ArrowType.Int(16, true);
      case INT32 -> new ArrowType.Int(32, true);
      case INT64 -> new ArrowType.Int(64, true);
      case FLOAT32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case UTF8 -> ArrowType.Utf8.INSTANCE;
      case BINARY -> ArrowType.Binary.INSTANCE;
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIMESTAMP_MS -> new ArrowType.Timestamp(TimeUnit.MILLISECOND, null);
      case TIMESTAMP_US -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      case TIMESTAMP_NS -> new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
    };
  }
}
