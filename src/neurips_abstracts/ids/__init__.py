"""Paper ids that never change or vanish: each paper's id kept from the previous release, merged,
removed or new. May import core/, text/, ingest/ and dedup/."""
