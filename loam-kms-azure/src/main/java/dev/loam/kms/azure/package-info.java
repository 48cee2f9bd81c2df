/** {@link dev.loam.kms.KeyManagementService} on Azure Key Vault. */
package dev.loam.kms.azure;
