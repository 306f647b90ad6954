"""The project's expected failures: :class:`ProjectError` and its kinds, each shown to a user as
its one line (no traceback). Bad input (:class:`DumpError`) names the file and, where there is
one, the line; ``add``'s refusal, ``AddError``, carries ``validate``'s findings instead."""

from __future__ import annotations

from pathlib import Path

# What a command says of a raw folder that is not there (build, check, validate, add): most often
# the command was run outside the project's folder.
NO_RAW_FOLDER = ("no such folder: the dumps live in the project's raw/ folder; run the command in the folder "
                 "holding raw/ and dist/ (a clone of the project), or name the folder with --raw")


class ProjectError(Exception):
    """A failure the project expects (bad input, a refusal, a broken contract, the Hub, git, a
    lock): its message is the one line a user sees. Anything else is a bug."""


class DumpError(ProjectError, ValueError):
    """A dump (or the raw/ folder) that cannot be built, with where the problem is and the name
    of the rule it breaks (``code``, as `validate` reports it)."""

    def __init__(self, file: str, message: str, line: int | None = None, column: int | None = None, code: str = "parse"):
        self.file = file
        self.code = code
        self.line = line
        self.column = column
        self.message = message
        where = file
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(f"{where}: error: {message}")



class Refused(DumpError):
    """A folder a command will not write: nothing was changed."""

    def __init__(self, path: str | Path, reason: str):
        super().__init__(str(path), f"refused: {reason}", code="refused")


class LockHeld(Refused):
    """A folder another command is writing now (it holds the folder's lock)."""


class GitError(DumpError):
    """A release the git history of a clone does not hold, or holds damaged (``path``: the
    revision or file of it named)."""

    def __init__(self, path: str, message: str):
        super().__init__(path, message, code="git")


class HubReadError(DumpError):
    """The Hub could not be read (it answered an error, or could not be reached): ``repo_id`` and
    what was read."""

    def __init__(self, repo_id: str, message: str):
        super().__init__(repo_id, message, code="hub")


class ContractError(ProjectError):
    """The build produced tables that break a promise of the dataset (not an AssertionError: it
    holds under ``python -O``, and no ``except AssertionError`` takes it for a test's)."""


class PublishError(ProjectError):
    """A refusal or failure of publish or the Hub, in words fit to print."""
