"""The build's stages, one per module, in the order ``build.run`` calls them: ``read`` (list,
hash and check each dump), ``parse`` (and normalize), ``near_dup`` (papers of versions),
``identify`` (paper ids, from ids/), ``render`` (plain text), ``assemble`` (the tables) and
``write`` (contracts, then dist/). Each takes the typed hand-offs of the stages before it and
returns its own; the process pool (``core.pool``) is passed in, and the render stage, the
last to use it, shuts it down. May import every folder from core/ to release/."""
