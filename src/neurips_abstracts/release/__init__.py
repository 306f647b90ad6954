"""Everything in dist/: contracts, Parquet writing, card, datasheet, data package, Croissant,
manifest, statistics, verify and diff, and the project's docs generated from a release
(``docs``). May import core/, text/, ingest/, dedup/ and ids/."""
