"""Ctrl-C and SIGTERM: a command stops before its commit, leaving everything old, or finishes it,
leaving everything new; never half, and the exit status says which.

A command's work is interruptible up to its commit (the renames that put a release in place;
the docs made from it are refreshed after, as part of finishing): the first SIGINT or SIGTERM raises KeyboardInterrupt there, the
clean-up removes what was written, and the command exits non-zero. Later signals are ignored,
so a second Ctrl-C cannot break into the clean-up or the interpreter's exit (it used to print
a traceback from an exit handler). During the commit (:func:`uninterrupted`) a signal is held;
once the commit is made, the command finishes and exits 0, saying it was interrupted too late
to stop (:func:`finish_note`).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

_SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s is not None)


class _State:
    handled = False  # a command's handlers are installed (``handled``)
    holding = False  # inside ``uninterrupted``
    committed = False  # a commit was made: later signals are noted, not raised
    pending: int | None = None  # a signal held, or noted after the commit
    stopped = False  # a signal stopped the command
    target: tuple[str, str] | None = None  # what the command writes, and what it is once committed
    made: str | None = None  # what a commit made elsewhere than a folder (``made_elsewhere``) holds


_state = _State()


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _on_signal(signum, frame) -> None:
    if _state.holding or _state.committed:
        _state.pending = signum
        return
    _state.stopped = True
    for s in _SIGNALS:  # once: the clean-up and the exit run undisturbed
        signal.signal(s, signal.SIG_IGN)
    raise KeyboardInterrupt


@contextlib.contextmanager
def handled(keep_after_commit: bool = False) -> Iterator[None]:
    """Run a command under these rules (the CLI wraps every command in it). Its handlers are
    restored afterwards, unless a signal stopped the command (then they stay ignored until
    exit) or, with ``keep_after_commit`` (a command run as its own process), a commit was made:
    then signals are ignored until exit, since one during the interpreter's exit would
    otherwise kill a finished command with 130."""
    if not _in_main_thread() or _state.handled:
        yield
        return
    saved = {s: signal.getsignal(s) for s in _SIGNALS}
    _state.handled, _state.committed, _state.pending, _state.stopped = True, False, None, False
    _state.target = _state.made = None
    for s in _SIGNALS:
        signal.signal(s, _on_signal)
    try:
        yield
    finally:
        _state.handled = False
        if keep_after_commit and _state.committed and not _state.stopped:
            # Ignored, not noted, from here to the exit: the interpreter resets a Python handler
            # to the default as it finalizes (a late signal then killed a finished command with
            # 130 or 143), but leaves an ignored signal ignored.
            for s in _SIGNALS:
                signal.signal(s, signal.SIG_IGN)
        elif not _state.stopped:
            for s, handler in saved.items():
                signal.signal(s, handler)


@contextlib.contextmanager
def uninterrupted(final: bool = True) -> Iterator[None]:
    """Hold SIGINT and SIGTERM while the block runs: the renames of a commit. If the block fails,
    its error goes on and a held signal is dropped (the command fails either way). If it
    succeeds and is ``final`` (the commit of what the command was asked to write, not of a
    folder it writes for itself, as ``check``'s rebuild), the command goes on to exit 0, later
    signals only noted (under ``handled``); otherwise a held signal is delivered after the block.
    Holds do not nest: one attempted inside another is refused (RuntimeError), since a signal
    held by the inner one could only be dropped or delivered inside the outer commit."""
    if not _in_main_thread():
        yield
        return
    if _state.holding:
        raise RuntimeError("uninterrupted: a hold inside a hold is refused (holds do not nest)")
    saved = None
    if not _state.handled:
        saved = {s: signal.getsignal(s) for s in _SIGNALS}
        for s in _SIGNALS:
            signal.signal(s, _on_signal)
    _state.holding, held_before = True, _state.pending
    ok = False
    try:
        yield
        ok = True
    finally:
        committed = ok and final and _state.handled
        if committed:
            _state.committed = True  # first: from here on a signal is only noted, never raised
        held = _state.pending if _state.pending != held_before else None
        _state.holding = False
        if saved is not None:
            for s, handler in saved.items():
                signal.signal(s, handler)
        if not committed:
            _state.pending = held_before
            if ok and held is not None:
                signal.raise_signal(held)  # its handler (ours raises KeyboardInterrupt) decides


def writes(folder: str, once_done: str = "is the new release") -> None:
    """Name what the command writes (a folder, as typed), for the one line a signal gets."""
    _state.target = (folder.rstrip("/\\") + "/", once_done)


def made_elsewhere(what: str) -> None:
    """The command's commit was made outside this machine (publish's tag on the Hub): from here
    on it finishes, signals only noted, and ``what`` (what now holds the work) ends its note."""
    if _state.handled and _in_main_thread():
        _state.committed, _state.made = True, what


def stopped_note() -> str:
    """The line for a command a signal stopped before its commit (it exits 1): what it left."""
    if _state.target is None:
        return "interrupted: nothing was changed"
    return f"interrupted: {_state.target[0]} unchanged"


def finish_note() -> str | None:
    """What to tell a user whose signal came after the commit (the command exits 0), or None."""
    if _state.committed and _state.pending is not None:
        name = signal.Signals(_state.pending).name
        target = _state.target
        done = _state.made or (f"{target[0]} {target[1]}" if target else "everything it wrote is new")
        return (f"interrupted: {done} ({name} came after the release was complete: the command finished, and "
                f"everything it wrote is new)")
    return None
