"""The build's stages in the order it runs them, as its timings, its progress bar and the
benchmark tables name them."""

STAGES = ("read", "parse", "normalize", "near-dup", "plain text", "assemble", "contracts and write")
