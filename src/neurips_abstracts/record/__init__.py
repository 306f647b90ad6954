"""The published record: what this project has released, and the readers of other releases
measured against it. ``model`` is its data (each release, and the record they make); ``published`` builds the record (the release tags in git and on the Hub,
the dated CHANGELOG versions, and the one way every command names a release); ``checks`` holds
a build to it; ``git`` reads a release committed to git; ``hub`` reads the Hub's release tags,
``files`` compares a release's files with a Hub commit's by content (``hub/``'s publish too);
``diff`` and ``verify`` compare and verify releases. May import core/, text/, ingest/, dedup/,
ids/ and release/ (the renderers); never the build (build/), which imports it."""
