"""The one error family: every expected failure is a ProjectError, shown as its one line."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from neurips_abstracts.cli.errors import ReportsErrors, one_line
from neurips_abstracts.contribute.add import AddError
from neurips_abstracts.core.errors import (
    ContractError,
    DumpError,
    GitError,
    HubReadError,
    LockHeld,
    ProjectError,
    PublishError,
    Refused,
)
from neurips_abstracts.hub.client import HubUnavailable
from neurips_abstracts.hub.protocol import PublishInterrupted

FAILURES = [
    (DumpError("raw/001.txt", "bad line", 3, 7), "raw/001.txt:3:7: error: bad line"),
    (Refused("dist", "it is the current folder"), "dist: error: refused: it is the current folder"),
    (LockHeld("dist", "another command is writing it now"), "dist: error: refused: another command is writing it now"),
    (GitError("v1.0.0", "no commit has it"), "v1.0.0: error: no commit has it"),
    (HubReadError("org/ds", "reading its tags: the Hub answered 500"), "org/ds: error: reading its tags: the Hub answered 500"),
    (ContractError("papers: 2 rows lost"), "papers: 2 rows lost"),
    (PublishError("refused: no token"), "refused: no token"),
    (HubUnavailable("the Hub kept failing"), "the Hub kept failing"),
    (PublishInterrupted("stopped: nothing was published"), "stopped: nothing was published"),
    (AddError("x.txt: error: not added"), "x.txt: error: not added"),
]


@pytest.mark.parametrize("exc, line", FAILURES, ids=lambda v: type(v).__name__ if isinstance(v, Exception) else "")
def test_every_kind_is_a_project_error_shown_as_its_line(exc, line):
    assert isinstance(exc, ProjectError)
    assert one_line(exc) == line


def _cli(exc: BaseException) -> click.Group:
    @click.group(cls=ReportsErrors)
    def main():
        pass

    @main.command()
    def go():
        raise exc

    return main


@pytest.mark.parametrize("exc, line", FAILURES, ids=lambda v: type(v).__name__ if isinstance(v, Exception) else "")
def test_through_the_cli_one_line_exit_1_no_traceback(exc, line):
    result = CliRunner().invoke(_cli(exc), ["go"])
    assert result.exit_code == 1
    assert result.stderr.strip() == line
    assert "Traceback" not in result.output + result.stderr


def test_contract_error_is_no_assertion_error():
    assert not issubclass(ContractError, AssertionError)
    with pytest.raises(ContractError):  # an `except AssertionError` does not take it
        try:
            raise ContractError("broken")
        except AssertionError:
            pytest.fail("caught as an AssertionError")


def test_refusals_are_not_bad_input_subclasses_of_each_other_by_accident():
    assert issubclass(LockHeld, Refused) and not issubclass(PublishError, DumpError)
    assert not issubclass(ContractError, DumpError) and not issubclass(AddError, DumpError)


@pytest.mark.parametrize("exc", [KeyError("k"), ZeroDivisionError("division by zero"), AssertionError("x")])
def test_an_unknown_exception_is_an_internal_error(exc):
    assert one_line(exc).startswith(f"internal error (a bug; please report it): {type(exc).__name__}")
    result = CliRunner().invoke(_cli(exc), ["go"])
    assert result.exit_code == 1
    assert result.stderr.startswith("internal error (a bug; please report it)")
    assert "Traceback" not in result.stderr


def test_a_held_lock_is_lock_held(tmp_path):
    import multiprocessing as mp

    from neurips_abstracts.core.lock import writing
    folder = tmp_path / "dist"
    folder.mkdir()
    ctx = mp.get_context("spawn")
    ready, done = ctx.Event(), ctx.Event()
    p = ctx.Process(target=_hold, args=(str(folder), ready, done))
    p.start()
    try:
        assert ready.wait(60)
        with pytest.raises(LockHeld, match="refused: another command"):
            with writing(folder):
                pass
    finally:
        done.set()
        p.join(60)


def _hold(folder, ready, done):
    from neurips_abstracts.core.lock import writing

    with writing(folder):
        ready.set()
        done.wait(60)
