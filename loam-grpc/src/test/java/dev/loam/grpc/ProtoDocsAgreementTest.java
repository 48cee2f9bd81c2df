package dev.loam.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import dev.loam.grpc.v1.AdminProto;
import dev.loam.grpc.v1.CloudEventsProto;
import dev.loam.grpc.v1.ClusterProto;
import dev.loam.grpc.v1.ConsumerProto;
import dev.loam.grpc.v1.ErrorReason;
import dev.loam.grpc.v1.ErrorsProto;
import dev.loam.grpc.v1.RecordsProto;
import dev.loam.grpc.v1.StreamProto;
import dev.loam.grpc.v1.cloudevents.CloudEventsSpecProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/grpc.md lists exactly the services, methods, messages, fields (with their types)
 * and enum values of the published .proto files, and its error table every error reason.
 */
class ProtoDocsAgreementTest {
  static final Pattern HEADING = Pattern.compile("^#{3,4} `([\\w]+)`( \\(enum\\))?$");
  static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| (?:`([^`]+)` )?");

  static final FileDescriptor[] FILES = {
    AdminProto.getDescriptor(),
    StreamProto.getDescriptor(),
    ConsumerProto.getDescriptor(),
    dev.loam.grpc.v1.WriterProto.getDescriptor(),
    ClusterProto.getDescriptor(),
    RecordsProto.getDescriptor(),
    ErrorsProto.getDescriptor(),
    CloudEventsProto.getDescriptor(),
    CloudEventsSpecProto.getDescriptor()
  };

  static String docs() throws IOException {
    return Files.readString(
        Path.of("").toAbsolutePath().getParent().resolve("docs/reference/grpc.md"));
  }

  /** Heading (service, message or enum) to its rows: first column to second (or ""). */
  static Map<String, Map<String, String>> reference(String docs) {
    String ref = docs.substring(docs.indexOf("\n## Reference"));
    Map<String, Map<String, String>> out = new TreeMap<>();
    Map<String, String> current = null;
    for (String line : ref.split("\n")) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        current = new TreeMap<>();
        assertThat(out.put(h.group(1), current)).as("listed once: " + h.group(1)).isNull();
        continue;
      }
      Matcher r = ROW.matcher(line);
      if (current != null && r.find()) {
        current.put(r.group(1), r.group(2) == null ? "" : r.group(2));
      }
    }
    return out;
  }

  static String typeOf(FieldDescriptor f) {
    if (f.isMapField()) {
      Descriptor entry = f.getMessageType();
      return "map<"
          + scalar(entry.findFieldByName("key"))
          + ", "
          + scalar(entry.findFieldByName("value"))
          + ">";
    }
    String t = scalar(f);
    if (f.isRepeated()) {
      return "repeated " + t;
    }
    return f.hasPresence() && f.getContainingOneof() != null ? "optional " + t : t;
  }

  static String scalar(FieldDescriptor f) {
    return switch (f.getType()) {
      case MESSAGE -> f.getMessageType().getName();
      case ENUM -> f.getEnumType().getName();
      default -> f.getType().name().toLowerCase(Locale.ROOT);
    };
  }

  @Test
  void theReferenceListsExactlyWhatTheProtosDeclare() throws IOException {
    Map<String, Map<String, String>> expected = new TreeMap<>();
    for (FileDescriptor file : FILES) {
      for (ServiceDescriptor s : file.getServices()) {
        Map<String, String> rows = new TreeMap<>();
        for (MethodDescriptor m : s.getMethods()) {
          rows.put(s.getName() + "/" + m.getName(), m.getInputType().getName());
        }
        expected.put(s.getName(), rows);
      }
      for (Descriptor d : file.getMessageTypes()) {
        Map<String, String> rows = new TreeMap<>();
        for (FieldDescriptor f : d.getFields()) {
          rows.put(f.getName(), typeOf(f));
        }
        expected.put(d.getName(), rows);
      }
      for (EnumDescriptor e : file.getEnumTypes()) {
        Map<String, String> rows = new TreeMap<>();
        for (EnumValueDescriptor v : e.getValues()) {
          rows.put(v.getName(), "");
        }
        expected.put(e.getName(), rows);
      }
    }
    assertThat(reference(docs())).isEqualTo(expected);
  }

  @Test
  void theErrorTableNamesEveryReason() throws IOException {
    String docs = docs();
    String errors = docs.substring(docs.indexOf("\n## Errors"), docs.indexOf("\n## Subscribe"));
    for (ErrorReason r : ErrorReason.values()) {
      if (r == ErrorReason.ERROR_REASON_UNSPECIFIED || r == ErrorReason.UNRECOGNIZED) {
        continue;
      }
      assertThat(errors).contains("| `" + r.name().toLowerCase(Locale.ROOT) + "` |");
    }
  }
}
