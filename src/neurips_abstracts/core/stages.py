"""The build's stages in the order it runs them, as its timings, its progress bar and the
benchmark tables name them, and the stage wrapper that times nothing."""

from contextlib import contextmanager

STAGES = ("read", "parse", "normalize", "near-dup", "plain text", "assemble", "contracts and write")


@contextmanager
def no_timer(name: str):
    """``stage(name)`` for a build nobody times."""
    yield
