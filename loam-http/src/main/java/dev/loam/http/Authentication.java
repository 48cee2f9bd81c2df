package dev.loam.http;

/**
 * When a {@link LoamHttpServer} asks for an API key (docs/security.md "When authentication
 * applies"). Every mode serves {@code GET /v1/health} without one, so a load balancer's liveness
 * probe needs no credentials.
 */
public enum Authentication {
  /**
   * Every other request needs {@code Authorization: Bearer <id>.<secret>} of an active key. One
   * exception bootstraps a cluster: while it holds no active key, {@code POST /v1/admin/keys} from
   * a loopback address creates one without a key.
   */
  REQUIRED,
  /**
   * Open while the cluster holds no active key, {@link #REQUIRED} from the first one on (on every
   * node, within one metastore watch). The default on a loopback address: the demo needs no set-up,
   * and creating a key closes the door.
   */
  WHEN_KEYS_EXIST,
  /** Never asks: for a host that authenticates in front of Loam, or a test. */
  NONE
}
