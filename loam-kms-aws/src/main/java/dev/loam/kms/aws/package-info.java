/** {@link dev.loam.kms.KeyManagementService} on AWS KMS. */
package dev.loam.kms.aws;
