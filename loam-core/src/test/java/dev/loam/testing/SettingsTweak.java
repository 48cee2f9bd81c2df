package dev.loam.testing;

import dev.loam.api.NodeSettings;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Map;

/**
 * Copies a {@link NodeSettings} with some components replaced by name, through the record's
 * canonical constructor, so tests can tune settings that have no {@code with} method without
 * depending on the component order.
 */
public final class SettingsTweak {
  private SettingsTweak() {}

  /** {@code s} with each named component set to its value; unknown names fail. */
  public static NodeSettings with(NodeSettings s, Map<String, Object> changes) {
    RecordComponent[] rc = NodeSettings.class.getRecordComponents();
    Class<?>[] types = new Class<?>[rc.length];
    Object[] args = new Object[rc.length];
    int used = 0;
    try {
      for (int i = 0; i < rc.length; i++) {
        types[i] = rc[i].getType();
        if (changes.containsKey(rc[i].getName())) {
          args[i] = changes.get(rc[i].getName());
          used++;
        } else {
          args[i] = rc[i].getAccessor().invoke(s);
        }
      }
      if (used != changes.size()) {
        throw new IllegalArgumentException("unknown NodeSettings component in " + changes.keySet());
      }
      Constructor<NodeSettings> c = NodeSettings.class.getDeclaredConstructor(types);
      return c.newInstance(args);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot copy NodeSettings", e);
    }
  }
}
