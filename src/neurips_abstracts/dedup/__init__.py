"""Which distinct normalized texts are the same paper: shingles, MinHash LSH, verified similarity.
May import core/, text/ and ingest/."""
