/** {@link dev.loam.kms.KeyManagementService} on Google Cloud KMS. */
package dev.loam.kms.gcp;
