/**
 * TLS for Loam's listeners and the metastore's Raft port: {@link dev.loam.tls.TlsSettings} names
 * PEM files, {@link dev.loam.tls.ReloadingTls} turns them into JDK key and trust managers that pick
 * up replaced files on a later handshake, without a restart.
 */
package dev.loam.tls;
