/**
 * The S3 object store: {@link dev.loam.storage.s3.S3ObjectStore}, its settings {@link
 * dev.loam.storage.s3.S3StoreSettings}, and the {@code s3://} URI provider {@link
 * dev.loam.storage.s3.S3ObjectStoreProvider}. No AWS SDK type appears in these public signatures.
 */
package dev.loam.storage.s3;
