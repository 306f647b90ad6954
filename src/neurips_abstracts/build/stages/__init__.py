"""The build's stages, one per module, in the order ``build.run`` calls them: ``read`` (list,
hash and check each dump), ``parse`` (and normalize), ``near_dup`` (papers of versions),
``identify`` (paper ids, from ids/), ``render`` (plain text), ``assemble`` (the tables) and
``write`` (contracts, then dist/). Each takes the typed hand-offs of the stages before it and
returns its own, in one process. May import every folder from core/ to release/."""
