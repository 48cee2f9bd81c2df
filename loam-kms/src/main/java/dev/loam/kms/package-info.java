/**
 * The key-management SPI ({@link dev.loam.kms.KeyManagementService}): namespace master keys that
 * wrap the key-encryption keys of envelope-encrypted WAL chunks and segments, and its local
 * implementation on a PKCS#12 key store file ({@link dev.loam.kms.Pkcs12KeyManagementService}).
 */
package dev.loam.kms;
