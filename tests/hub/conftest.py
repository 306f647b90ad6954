"""Fixtures of the tests of publish: a committed checkout built from the seeds, a copy of it for
each test, the test Hub on 127.0.0.1, and `check` and `verify` run once for given bytes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from neurips_abstracts.core.resources import hub_repo

from tests.helpers import make_project
from tests.helpers.hub import OTHER, TOKEN, changelog, folder_digest, package_changelog
from tests.hub.hub_server import Hub

_ANSWERS = {}  # (function, digest of what it reads) -> its answer, kept while the tests run


@pytest.fixture(scope="module", autouse=True)
def released_package(tmp_path_factory):
    """The package as at a release commit: its CHANGELOG.md dates its version (the release step),
    as publish requires, for every project these tests build and publish, in this process and
    in the processes ``tests.helpers.hub.publish`` starts."""
    path = tmp_path_factory.mktemp("released-package") / "CHANGELOG.md"
    path.write_text(changelog(dated=True), encoding="utf-8")
    with package_changelog(path):
        yield path


@pytest.fixture(scope="module")
def built_project(tmp_path_factory):
    """The committed checkout, built once: each test gets its own copy (git history and all)."""
    return make_project(tmp_path_factory.mktemp("template"))


@pytest.fixture
def project(built_project, tmp_path):
    root = tmp_path / "project"
    shutil.copytree(built_project, root, symlinks=True)
    return root


@pytest.fixture(autouse=True)
def check_and_verify_once_per_content(monkeypatch):
    """Publish runs `check` and `verify` before it uploads: the real ones, each run once for
    given inputs. `verify` reads only the folder it is given, and `check` without the checkout's
    docs only raw/, dist/ and the published record (the tags and dated CHANGELOG its ids are
    measured against), so their answers are functions of those: the same dist/ (each fault row's,
    and the copy staged from it) and record get the answer its first run gave, and changed bytes
    (a stale or tampered dist/) or a changed record (a tag made) get a new run."""
    from neurips_abstracts import build as build_module
    from neurips_abstracts.record import verify as verify_module

    real_verify, real_check = verify_module.verify, build_module.check

    def verify(dist, *args, **kwargs):
        key = ("verify", args, tuple(sorted(kwargs.items())), folder_digest(dist))
        if key not in _ANSWERS:
            _ANSWERS[key] = real_verify(dist, *args, **kwargs)
        return list(_ANSWERS[key])

    def check(raw, dist, *args, docs=True, **kwargs):
        if docs or args or kwargs:  # the checkout's docs are read too: not kept
            return real_check(raw, dist, *args, docs=docs, **kwargs)
        from neurips_abstracts.record.published import published_record

        record = published_record(raw, dist).published
        key = ("check", Path(dist).name, folder_digest(raw, dist), record)  # stale files are named dist/<path>
        if key not in _ANSWERS:
            _ANSWERS[key] = real_check(raw, dist, docs=False)
        return list(_ANSWERS[key])

    monkeypatch.setattr(verify_module, "verify", verify)
    monkeypatch.setattr(build_module, "check", check)


@pytest.fixture
def hub():
    with Hub({TOKEN: ("alice", ["neurips-org", hub_repo().split("/")[0]]), OTHER: ("mallory", [])}) as h:
        yield h
