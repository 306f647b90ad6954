"""The exception for bad input: it names the file and, where there is one, the line. (``add``'s
refusal, ``AddError``, carries ``validate``'s findings instead, each naming its file and line.)"""

from __future__ import annotations


# What a command says of a raw folder that is not there (build, check, validate, add): most often
# the command was run outside the project's folder.
NO_RAW_FOLDER = ("no such folder: the dumps live in the project's raw/ folder; run the command in the folder "
                 "holding raw/ and dist/ (a clone of the project), or name the folder with --raw")


class DumpError(ValueError):
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

    def __reduce__(self):
        # Raised in a worker process, it crosses back with every field (a subclass as a DumpError).
        return DumpError, (self.file, self.message, self.line, self.column, self.code)


class ContractError(AssertionError):
    """The build produced tables that break a promise of the dataset."""
