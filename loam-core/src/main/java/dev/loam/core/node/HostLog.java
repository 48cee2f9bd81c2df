package dev.loam.core.node;

import dev.loam.api.Log;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The {@link Log} a host is given: the node's own, with every future it answers turned into a
 * {@link HostFuture} completed on the node's callback executor. Built as a proxy over the
 * interface, so every method, including one added later, is covered without a forwarding method
 * each; default methods run on the proxy, so what they call is covered too.
 */
public final class HostLog {
  private HostLog() {}

  /** {@code log} as a host sees it, its futures completing on {@code callbacks}. */
  public static Log wrap(Log log, Executor callbacks) {
    InvocationHandler h =
        (proxy, method, args) -> {
          Object result;
          if (method.getDeclaringClass() == Object.class) {
            return objectMethod(proxy, method, args, log);
          }
          if (method.isDefault()) {
            result = InvocationHandler.invokeDefault(proxy, method, args);
          } else {
            try {
              result = method.invoke(log, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          }
          if (result instanceof CompletableFuture<?> f && !(f instanceof HostFuture<?>)) {
            return HostFuture.of(f, callbacks);
          }
          return result;
        };
    return (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] {Log.class}, h);
  }

  private static Object objectMethod(Object proxy, Method method, Object[] args, Log log) {
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      default -> "HostLog[" + log + "]";
    };
  }
}
