/**
 * The Azure Blob Storage {@link dev.loam.spi.store.ObjectStore}: {@link
 * dev.loam.storage.azure.AzureBlobObjectStore}, its settings {@link
 * dev.loam.storage.azure.AzureBlobStoreSettings} and the {@code azblob://} provider {@link
 * dev.loam.storage.azure.AzureBlobStoreProvider}. No Azure SDK type appears in these public types.
 * See docs/reference/storage-azure.md.
 */
package dev.loam.storage.azure;
