"""``neurips_abstracts.normalize.normalize``: the path the dataset card gives users (since 1.1.0)
to normalize an abstract before matching its SHA-256 against ``occurrences.text_sha256``. It
stays while the function lives in ``text/normalize.py`` with the other text rules."""

from .text.normalize import normalize

__all__ = ["normalize"]
