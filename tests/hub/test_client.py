"""HubClient leaves huggingface_hub and the environment as it found them."""

from __future__ import annotations

import os


def test_publishs_client_restores_huggingface_hubs_session_and_the_environment(monkeypatch):
    """While entered, huggingface_hub's shared client waits at most the timeout and hf_xet's
    settings are publish's; on exit the same client (made by the factory the process had, never
    replaced) has its own timeout back, and os.environ is exactly as before."""
    from huggingface_hub import get_session

    from neurips_abstracts.hub.client import HubClient, PublishConfig

    monkeypatch.setenv("HF_XET_CLIENT_READ_TIMEOUT", "9s")  # a setting of the user's: kept
    monkeypatch.delenv("HF_XET_CLIENT_CONNECT_TIMEOUT", raising=False)
    before_env, session = dict(os.environ), get_session()
    own = session.timeout
    with HubClient("hf_x", "http://127.0.0.1:9", PublishConfig(timeout_seconds=3.5), print) as hub:
        assert get_session() is session and session.timeout.read == 3.5 and session.timeout.connect == 3.5
        assert os.environ["HF_XET_CLIENT_READ_TIMEOUT"] == "3500ms"
        assert os.environ["HF_XET_CLIENT_RETRY_MAX_ATTEMPTS"] == "0"
        hub.call("a call", lambda: None)
    assert get_session() is session and not session.is_closed and session.timeout == own
    assert dict(os.environ) == before_env
