"""Everything in dist/: contracts, Parquet writing, card, datasheet, data package, Croissant,
manifest, verify and diff. May import core/, text/, ingest/, dedup/ and ids/."""
