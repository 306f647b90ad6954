"""Which records are the same paper: exact (each record normalized, its distinct texts numbered) and near (shingles,
MinHash LSH, verified similarity). May import core/, text/ and ingest/."""
