"""The Hub as publish talks to it: each huggingface_hub call retried as the Hub means its
answers, every network wait bounded, and failures in words fit to print."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.errors import PublishError


class HubUnavailable(PublishError):
    """The Hub or its storage kept failing (5xx, 429, timeouts, connection errors) after every attempt."""


@dataclass(frozen=True)
class PublishConfig:
    attempts: int = 4  # tries for each call on transient errors (5xx, 429, timeouts, connection, storage)
    backoff_seconds: float = 1.0  # first wait; doubles after every failed try
    # Longest wait for any one network operation (connect, send, receive a part of the answer):
    # huggingface_hub's own client waits forever, so a Hub that never answers would hang publish.
    timeout_seconds: float = 120.0


class HubClient:
    """The huggingface_hub calls publish makes, each retried on transient errors."""

    def __init__(self, token: str, endpoint: str | None, config: PublishConfig, log: Callable[[str], None]):
        from huggingface_hub import HfApi

        self.api = HfApi(endpoint=endpoint, token=token)
        self.endpoint = self.api.endpoint
        self.token = token
        self.config = config
        self.log = log
        self._timeouts: dict[int, tuple[Any, Any]] | None = None  # while entered: id -> (client, its timeout)

    def __enter__(self) -> "HubClient":
        """While publishing, every network operation waits at most ``config.timeout_seconds``;
        on exit huggingface_hub and the environment are as they were.

        huggingface_hub sends every request through one shared client (``get_session``, public)
        that its factory makes with no timeout: publish sets the timeout on that client
        (``httpx2.Client.timeout``, public) before each call, since huggingface_hub makes a new
        one after some failures, and gives each client it touched its own timeout back on exit.
        The factory is never replaced (huggingface_hub offers no public way to read it, so it
        could not be put back). hf_xet, which sends the files to the Hub's Xet storage, reads its
        settings from ``HF_XET_*`` environment variables when huggingface_hub makes its Xet
        session (the first upload or download of a process): its connect and read timeouts are
        set to ours, and its own retries off, so that publish's attempts are the only retries and
        a storage that is down, slow or failing costs at most ``attempts`` x ``timeout`` (plus
        backoff) per request it makes; the variables are restored on exit. (In a process that
        used Xet before publishing, that session's settings stay: huggingface_hub offers no
        public way to make a new one. The command runs in a process of its own.)"""
        import os

        self._timeouts = {}
        self._bound_session()
        wait = f"{max(1, round(self.config.timeout_seconds * 1000))}ms"
        xet = {"HF_XET_CLIENT_RETRY_MAX_ATTEMPTS": "0", "HF_XET_CLIENT_CONNECT_TIMEOUT": wait,
               "HF_XET_CLIENT_READ_TIMEOUT": wait}
        self._restore_env = {name: os.environ.get(name) for name in xet}
        os.environ.update(xet)
        return self

    def _bound_session(self) -> None:
        """huggingface_hub's shared client, with publish's timeout (its own kept to restore)."""
        from huggingface_hub import get_session

        if self._timeouts is None:  # not entered: nothing to restore, nothing changed
            return
        session = get_session()
        if id(session) not in self._timeouts:
            self._timeouts[id(session)] = (session, session.timeout)
        session.timeout = self.config.timeout_seconds

    def __exit__(self, *exc) -> None:
        import os

        for session, timeout in (self._timeouts or {}).values():
            session.timeout = timeout
        self._timeouts = None
        for name, value in self._restore_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def redact(self, text: str) -> str:
        return text.replace(self.token, "***") if self.token else text

    def call(self, what: str, fn, *args, recover: Callable[[], object] | None = None,
             recover_on: tuple[int, ...] = (409, 412), **kwargs):
        """``fn(*args, **kwargs)``, retried on transient errors: 5xx, 429, timeouts, connection
        errors, and the Xet storage's failures. A 429 or 503 of the Hub with ``Retry-After`` is
        retried after the wait it asks for, if that is no longer than the timeout; one of the Xet
        storage after the backoff, since hf_xet's error names the status in words but carries no
        headers (its ``Retry-After`` is lost). When the Hub answers a status
        of ``recover_on``, ``recover()`` may show that an earlier try went through: its result is
        returned instead."""
        import httpx2  # what huggingface_hub talks through: its network errors are httpx2's
        from huggingface_hub.errors import HfHubHTTPError

        wait = self.config.backoff_seconds
        for attempt in range(1, self.config.attempts + 1):
            pause = wait
            try:
                self._bound_session()
                return fn(*args, **kwargs)
            except HfHubHTTPError as exc:
                status = exc.response.status_code if exc.response is not None else None
                if status in recover_on and recover is not None:
                    recovered = recover()
                    if recovered is not None:
                        self.log(f"{what}: the Hub had already applied an earlier try; nothing more to do")
                        return recovered
                if status is not None and status < 500 and status != 429:
                    raise self._refusal(what, status, exc) from None
                reason = f"HTTP {status}"
                asked = retry_after(exc.response) if status in (429, 503) else None
                if asked is not None:
                    if asked > self.config.timeout_seconds:
                        raise HubUnavailable(
                            f"{what}: the Hub answered {status} and asks to wait {asked:g} s before trying again, "
                            f"longer than the timeout ({self.config.timeout_seconds:g} s)"
                        ) from None
                    pause, reason = asked, f"HTTP {status}, Retry-After {asked:g} s"
            except httpx2.TransportError as exc:  # timeouts, refused or reset connections, broken answers
                reason = type(exc).__name__
            except (ConnectionError, TimeoutError) as exc:  # hf_xet's: the Xet storage failed or never answered
                said = self.redact(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
                # hf_xet names the status in its message only ("... client error (403 Forbidden) ...")
                refused = re.search(r"client error \((4\d\d)\b", said)
                if refused and refused[1] != "429":
                    raise PublishError(f"{what}: the Xet storage refused ({refused[1]}): {said}") from None
                reason = f"Xet storage: {said}"
            if attempt == self.config.attempts:
                raise HubUnavailable(
                    f"{what}: gave up after {attempt} attempt{'s' if attempt > 1 else ''} ({reason}) talking to "
                    f"{self.endpoint}"
                )
            self.log(f"{what}: {reason}, retrying in {pause:g} s (attempt {attempt + 1} of {self.config.attempts})")
            time.sleep(pause)
            wait *= 2

    def _refusal(self, what: str, status: int, exc) -> PublishError:
        detail = self.redact(str(exc).splitlines()[0] if str(exc) else "")
        if status == 401:
            return PublishError(f"{what}: the Hub rejected the token (401): set a valid HF_TOKEN or log in again")
        if status == 403:
            return PublishError(f"{what}: forbidden (403): the token cannot write to this repository ({detail})")
        if status in (409, 412) and what == "commit":
            return PublishError(
                f"{what}: the branch moved since it was read ({status}); someone else committed meanwhile. "
                "Nothing was published and nothing is retried: run publish again to plan against the new head"
            )
        if status == 404:
            return PublishError(f"{what}: not found (404): {detail}")
        return PublishError(f"{what}: the Hub refused ({status}): {detail}")


def retry_after(response) -> float | None:
    """The seconds an answer's ``Retry-After`` asks to wait (a number or an HTTP date), or None."""
    from email.utils import parsedate_to_datetime

    value = (response.headers.get("retry-after") or "").strip() if response is not None else ""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
