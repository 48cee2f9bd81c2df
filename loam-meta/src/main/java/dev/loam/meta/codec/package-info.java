/**
 * Binary encodings of metastore commands and outcomes (docs/formats/metastore-commands.md) and the
 * bounds-checked reader and writer shared with snapshots.
 */
package dev.loam.meta.codec;
