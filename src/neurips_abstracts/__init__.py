"""Build a reproducible dataset of NeurIPS paper abstracts from raw paper-list dumps.

The library is usable without the CLI::

    from neurips_abstracts.build import build
    summary = build("raw", "dist")
"""
