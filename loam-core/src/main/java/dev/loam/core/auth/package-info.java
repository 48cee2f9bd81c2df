/**
 * API keys on one node (docs/security.md): creating a key's secret and its SCRAM values, verifying
 * presented keys against the local metastore replica with a short-lived cache, and dropping cached
 * verifications when a revocation is applied.
 */
package dev.loam.core.auth;
