"""Every command shows its defaults one way, click's ``[default: …]`` (issue 41: ``publish --help``
showed "(default: 120)")."""

from __future__ import annotations

import re

from click.testing import CliRunner

from neurips_abstracts.cli import main


def test_publish_help_shows_the_timeout_default_as_the_other_options_do():
    out = CliRunner().invoke(main, ["publish", "--help"], terminal_width=400).output
    assert "(default: 120)" not in out
    assert "[default: 120]" in out and "[default: 4]" in out


def test_the_list_of_commands_gives_each_summary_whole_and_no_option_takes_text():
    """`--help` lists each command with a summary of its own, never a sentence cut off with "..."
    (a new-user trial read "OUT is untouched if anything..."), and a command's help names what an
    option takes (a folder, a release), never click's TEXT."""
    out = CliRunner().invoke(main, ["--help"]).output
    listed = out.split("Commands:")[1].strip().splitlines()
    assert len(listed) == len(main.commands) and not [line for line in listed if line.endswith("...")], listed
    for name in main.commands:
        text = CliRunner().invoke(main, [name, "--help"]).output
        assert not re.search(r"\bTEXT\b", text.split("Options:")[1]), (name, text)
