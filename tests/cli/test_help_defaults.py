"""Every command shows its defaults one way, click's ``[default: …]`` (issue 41: ``publish --help``
showed "(default: 120)")."""

from __future__ import annotations

from click.testing import CliRunner

from neurips_abstracts.cli import main


def test_publish_help_shows_the_timeout_default_as_the_other_options_do():
    out = CliRunner().invoke(main, ["publish", "--help"], terminal_width=400).output
    assert "(default: 120)" not in out
    assert "[default: 120]" in out and "[default: 4]" in out
