"""The published record (``record.published``) anchors every command, wherever the folders are:
raw/ copied or linked elsewhere, an older dist/ checked out, a version already released, a
release damaged with its sums rewritten, a folder without git, a killed build's litter. Each
case is a project with releases tagged in git, built and read by the CLI as a user runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from neurips_abstracts.core.names import MANIFEST, SUMS, data_path

from tests.helpers import SEED_DIR, copy_seeds, make_dump, run_cli, snapshot

IDS = data_path("ids")
FIRST, SECOND = "000_400c640f3220c26d", "003_dd2fbb85e2f7150b"  # the seeds' two dumps


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout


def at_version(monkeypatch, version: str) -> None:
    """pyproject.toml's version, as the builds run in this process read it."""
    from neurips_abstracts import build as build_module
    from neurips_abstracts.release import manifest as manifest_module

    for module in (build_module, manifest_module):
        monkeypatch.setattr(module, "dataset_version", lambda: version)


def release(root: Path, monkeypatch, version: str, *build_args: str, day: str = "2026-11-29") -> None:
    """Build ``version``, date it in CHANGELOG.md, commit and tag it: the release steps."""
    at_version(monkeypatch, version)
    r = run_cli("build", *build_args, cwd=root)
    assert r.returncode == 0, r.stderr
    changelog = root / "CHANGELOG.md"
    text = changelog.read_text() if changelog.is_file() else "# Changelog\n\n"
    title, _, rest = text.partition("\n\n")
    changelog.write_text(f"{title}\n\n## {version} ({day})\n\n- Released.\n\n{rest}")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"release {version}")
    git(root, "tag", f"v{version}")


def ids_of(dist: Path) -> dict[str, dict]:
    return {r["id"]: r for r in pq.read_table(dist / IDS).to_pylist()}


def make_history(tmp_path: Path, monkeypatch, withdraw: bool) -> Path:
    """1.0.0 from the first seed dump; 1.1.0 adds the second and, with ``withdraw``, withdraws the
    first (its ids removed, kept in the ids table). pyproject.toml then says 1.2.0, unreleased."""
    root, held = tmp_path / "project", tmp_path / "held" / "back"
    copy_seeds(root / "raw")
    held.mkdir(parents=True)
    for ext in (".txt", ".json"):
        shutil.move(root / "raw" / f"{SECOND}{ext}", held / f"{SECOND}{ext}")
    git(tmp_path, "init", "-q", str(root))
    release(root, monkeypatch, "1.0.0", "--first-release")
    for ext in (".txt", ".json"):
        shutil.move(held / f"{SECOND}{ext}", root / "raw" / f"{SECOND}{ext}")
        if withdraw:
            (root / "raw" / f"{FIRST}{ext}").unlink()
    release(root, monkeypatch, "1.1.0", day="2026-11-30")
    at_version(monkeypatch, "1.2.0")
    return root


@pytest.fixture
def history(tmp_path, monkeypatch) -> Path:
    return make_history(tmp_path, monkeypatch, withdraw=True)


def keeps_published(dist: Path, published: dict[str, dict]) -> None:
    now = ids_of(dist)
    lost = sorted(set(published) - set(now))
    assert not lost, f"published ids lost: {lost}"
    assert {i: now[i]["first_release"] for i in published} == {i: r["first_release"] for i, r in published.items()}


def one_line_refusal(root: Path, *args: str) -> str:
    before = snapshot(root)
    r = run_cli(*args, cwd=root)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "internal error" not in r.stderr, r.stderr
    assert snapshot(root) == before
    return lines[0]


@pytest.mark.parametrize("how", ["copied", "linked"])
def test_raw_copied_or_linked_elsewhere_keeps_the_ids_of_the_dist_it_replaces(history, tmp_path, how):
    """`build --raw ../copy/raw` (or a link to raw/ in another folder) with the default --out dist
    replaced the committed dist/ by a first release: the removed ids were gone."""
    published = ids_of(history / "dist")
    assert any(r["status"] == "removed" for r in published.values())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if how == "copied":
        shutil.copytree(history / "raw", elsewhere / "raw")
    else:
        (elsewhere / "raw").symlink_to(history / "raw", target_is_directory=True)
    r = run_cli("build", "--raw", "../elsewhere/raw", cwd=history)
    assert r.returncode == 0, r.stderr
    keeps_published(history / "dist", published)


def test_an_older_dist_checked_out_is_never_the_anchor(history):
    """dist/ of 1.0.0 checked out after 1.1.0 was tagged: the build reads 1.1.0 from git, so the
    ids 1.1.0 published keep their first_release and the removed ones their retired_release."""
    published = ids_of(history / "dist")
    git(history, "checkout", "v1.0.0", "--", "dist")
    r = run_cli("build", cwd=history)
    assert r.returncode == 0, r.stderr
    now = ids_of(history / "dist")
    keeps_published(history / "dist", published)
    assert {i: now[i]["retired_release"] for i in published} == {i: r["retired_release"] for i, r in published.items()}


def test_an_older_release_named_is_refused_naming_both(history):
    line = one_line_refusal(history, "build", "--previous", "1.0.0")
    assert "1.0.0" in line and "1.1.0" in line and "git tag v1.1.0" in line
    git(history, "checkout", "v1.0.0", "--", "dist")
    line = one_line_refusal(history, "check", "--no-docs")  # check no longer passes an older dist/
    assert "1.0.0" in line and "1.1.0" in line


def test_a_build_under_a_released_version_is_refused_naming_the_bump(history, tmp_path, monkeypatch):
    """CHANGELOG dates 1.1.0 and tag v1.1.0 exists, pyproject still says 1.1.0: a dump added and
    built would get ids stamped first_release 1.1.0, a release that never held them."""
    at_version(monkeypatch, "1.1.0")
    before = (history / "dist").joinpath(SUMS).read_bytes()
    r = run_cli("build", cwd=history)  # rebuilding the released version from its own raw/: allowed, the same bytes
    assert r.returncode == 0, r.stderr
    assert (history / "dist" / SUMS).read_bytes() == before
    dump = tmp_path / "new.txt"
    dump.write_bytes(make_dump(["A new abstract on regret bounds for sparse linear bandits with graph feedback."]))
    assert run_cli("add", str(dump), cwd=history).returncode == 0
    line = one_line_refusal(history, "build")
    assert "mint 1 new id under version 1.1.0, which is published (git tag v1.1.0)" in line
    assert "bump the version in pyproject.toml (to 1.2.0)" in line and "installed" not in line
    from neurips_abstracts.core import resources

    monkeypatch.setattr(resources, "checkout", lambda: None)  # an installed wheel: its pyproject.toml is bundled
    line = one_line_refusal(history, "build")
    assert ("an installed package builds its own version only: in a clone of the project, bump the version in "
            "pyproject.toml (to 1.2.0) and build again there, with the clone's `python build_dataset.py`") in line, line


def test_a_published_version_is_not_rebuilt_from_other_dumps(history, tmp_path, monkeypatch):
    """Tagged without the bump, a dump that mints no id (a copy of a published abstract) would
    still change version 1.1.0's records and counts, exit 0: a published version never changes."""
    at_version(monkeypatch, "1.1.0")
    before = (history / "dist").joinpath(SUMS).read_bytes()
    published = next(p for p in sorted((history / "raw").glob("*.txt")))
    abstract = published.read_text(encoding="utf-8").split("\n\n")[1].strip()
    dump = tmp_path / "copy.txt"
    dump.write_bytes(make_dump([abstract]))
    assert run_cli("add", str(dump), cwd=history).returncode == 0
    line = one_line_refusal(history, "build")
    assert "change the data of version 1.1.0 (1 dump(s) it was not built from, 0 of its dumps missing)" in line, line
    assert "bump the version in pyproject.toml (to 1.2.0)" in line
    assert (history / "dist" / SUMS).read_bytes() == before


def test_a_table_deleted_with_its_sums_line_is_refused_not_read_as_an_older_format(tmp_path, monkeypatch):
    """Read as a release from before the ids table, 1.1.0 (1.0.0's papers and more, none
    removed) would have re-dated 1.0.0's ids to 1.1.0, exit 0."""
    history = make_history(tmp_path, monkeypatch, withdraw=False)
    dist = history / "dist"
    shutil.rmtree(dist / "data" / "ids")
    sums = dist / SUMS
    sums.write_text("".join(line + "\n" for line in sums.read_text().splitlines() if "data/ids/" not in line))
    line = one_line_refusal(history, "build")
    assert IDS in line and "damaged" in line and "lists the release's ids" in line
    # one file named, one "error:", the way out said once (it was wrapped in a second error)
    assert line.count("error:") == 1 and line.count("restore it") == 1, line


def test_an_ids_table_rewritten_with_its_sums_is_refused_against_the_manifest(history):
    """Same rows, other first_release, SHA256SUMS rewritten to match: the manifest lists every id."""
    import pyarrow as pa

    from neurips_abstracts.release.contents import sha256sums

    dist = history / "dist"
    table = pq.read_table(dist / IDS)
    first = ["0.0.1"] * table.num_rows
    pq.write_table(table.set_column(table.schema.get_field_index("first_release"), "first_release",
                                    pa.array(first)), dist / IDS)
    (dist / SUMS).write_text(sha256sums(dist))
    line = one_line_refusal(history, "build")
    assert IDS in line and f"disagrees with the ids {MANIFEST} lists" in line


@pytest.mark.parametrize("count", ["papers", "records", "relations.canonical", "dumps", "ids.current"])
def test_manifest_counts_that_disagree_with_the_tables_are_refused(history, count):
    """A manifest whose counts disagree with its tables, SHA256SUMS rewritten to match, was
    accepted as anchor: only its ids were checked."""
    from neurips_abstracts.release.contents import sha256sums

    dist = history / "dist"
    manifest = json.loads((dist / MANIFEST).read_text())
    where, _, key = count.rpartition(".")
    held = manifest["counts"][where] if where else manifest["counts"]
    held[key] -= 1
    (dist / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    (dist / SUMS).write_text(sha256sums(dist))
    line = one_line_refusal(history, "build", "--previous", "dist", "--out", "built")
    assert MANIFEST in line and f"counts.{count} is {held[key]}" in line and "damaged" in line, line


def test_a_tampered_ids_table_is_refused_by_its_sha256(history):
    """The same number of rows, one first_release changed, SHA256SUMS left alone: refused by the
    SHA-256 comparison itself (a survivor of the mutation that disabled it)."""
    import pyarrow as pa

    dist = history / "dist"
    table = pq.read_table(dist / IDS)
    column = table["first_release"].to_pylist()
    column[0] = "0.0.1"
    pq.write_table(table.set_column(table.schema.get_field_index("first_release"), "first_release",
                                    pa.array(column)), dist / IDS)
    line = one_line_refusal(history, "build")
    assert IDS in line and f"changed since the release was written (sha256 differs from {SUMS})" in line


def test_an_installed_package_beside_raw_alone_refuses_to_mint_ids(tmp_path, monkeypatch):
    """Outside any clone, the package's own CHANGELOG dates its releases: a folder holding only
    raw/ would give every published paper a new id. The advice names no git command."""
    from neurips_abstracts.core import resources

    monkeypatch.setattr(resources, "checkout", lambda: None)  # an installed wheel: no project behind it
    work = tmp_path / "work"
    copy_seeds(work / "raw")
    line = one_line_refusal(work, "build")
    assert "the package's CHANGELOG.md dates version" in line and "git" not in line
    assert "--previous" in line and "--first-release" in line


def test_an_unpacked_sdist_builds_on_the_release_it_holds_by_version(history, tmp_path, monkeypatch):
    """An sdist holds raw/, dist/ and CHANGELOG.md but no git: `build --previous 1.1.0`, which the
    README offers, reads the dist/ of that version; with dist/ gone, the advice names no git."""
    sdist = tmp_path / "neurips_abstracts-1.2.0"
    for name in ("raw", "dist"):
        shutil.copytree(history / name, sdist / name)
    shutil.copy(history / "CHANGELOG.md", sdist / "CHANGELOG.md")
    published = ids_of(sdist / "dist")
    r = run_cli("build", "--previous", "1.1.0", "--out", "built", cwd=sdist)
    assert r.returncode == 0, r.stderr
    keeps_published(sdist / "built", published)
    shutil.rmtree(sdist / "dist")
    line = one_line_refusal(sdist, "build")
    assert "CHANGELOG.md dates version 1.1.0" in line and "git" not in line


def test_a_killed_builds_litter_is_named_as_what_the_next_build_restores(history, tmp_path):
    """Killed between its renames, a build leaves dist/ moved aside: check and add --dry-run say
    the next build restores it (following `git checkout -- dist` would lose local ids)."""
    (history / "dist").rename(history / ".dist.neurips-abstracts-old-4194302-abc123")  # a pid no process has
    dump = tmp_path / "new.txt"
    dump.write_bytes(make_dump(["A new abstract on regret bounds for sparse linear bandits with graph feedback."]))
    for args in (("check", "--no-docs"), ("add", str(dump), "--dry-run"), ("verify", "dist"), ("diff", "1.1.0", "dist")):
        line = one_line_refusal(history, *args)
        assert "the next `python build_dataset.py build` restores it" in line and "git checkout" not in line, line
    assert run_cli("build", cwd=history).returncode == 0
    assert (history / "dist" / MANIFEST).is_file()


def test_ids_since_count_from_the_newest_published_release(history, tmp_path):
    """After two builds of a contribution, the second said 0 new: it counted from the local dist/."""
    dump = tmp_path / "new.txt"
    dump.write_bytes(make_dump(["A new abstract on regret bounds for sparse linear bandits with graph feedback.",
                                "Another new abstract: diffusion models that sample manifolds with a learned metric."]))
    assert run_cli("add", str(dump), cwd=history).returncode == 0
    for _ in range(2):
        r = run_cli("build", cwd=history)
        assert r.returncode == 0, r.stderr
    assert "ids since 1.1.0, the newest published release: 2 new, 0 merged into older papers, 0 removed" in r.stdout


def test_a_stray_dump_named_file_above_the_project_refuses_nothing(history, tmp_path):
    """A contributor's downloaded dump kept beside the clone is no raw folder of the project."""
    (tmp_path / "004_0123456789abcdef.txt").write_bytes(make_dump(["A downloaded abstract kept beside the clone."]))
    r = run_cli("build", cwd=history)
    assert r.returncode == 0, r.stderr
    r = run_cli("add", str(tmp_path / "004_0123456789abcdef.txt"), "--dry-run", cwd=history)
    assert r.returncode == 0, r.stderr


def test_the_record_lists_what_was_published_and_how(history, tmp_path, monkeypatch):
    from neurips_abstracts.record import published as record_module
    from neurips_abstracts.record.published import published_record

    for source in ("_package_clone", "_package_changelog"):  # a package that has published nothing
        monkeypatch.setattr(record_module, source, lambda: None)

    record = published_record(history / "raw", history / "dist")
    assert [(p.version, p.how) for p in record.published] == [("1.1.0", "git tag v1.1.0"), ("1.0.0", "git tag v1.0.0")]
    assert record.clone == history.resolve()
    outside = published_record(tmp_path / "nowhere" / "raw")
    assert outside.clone is None and outside.published == ()
    manifest = json.loads((history / "dist" / MANIFEST).read_text())
    assert manifest["dataset_version"] == "1.1.0"


def test_a_release_that_lost_published_ids_is_no_anchor(history):
    """dist/ rebuilt with --first-release (on purpose: exit 0) holds none of 1.1.0's removed ids;
    a plain build on it would carry the loss on, exit 0: refused, naming the newest release."""
    assert run_cli("build", "--first-release", cwd=history).returncode == 0
    line = one_line_refusal(history, "build")
    assert "that 1.1.0, the newest published release, holds" in line and "--previous 1.1.0" in line
    r = run_cli("build", "--previous", "1.1.0", cwd=history)
    assert r.returncode == 0, r.stderr


def test_advice_names_git_only_in_a_clone(tmp_path):
    """`add` in a folder outside git advises no `git add`; in a clone it does."""
    work = tmp_path / "work"
    copy_seeds(work / "raw")
    dump = tmp_path / "new.txt"
    dump.write_bytes(make_dump(["A new abstract on regret bounds for sparse linear bandits with graph feedback."]))
    r = run_cli("add", str(dump), cwd=work)
    assert r.returncode == 0, r.stderr
    assert "git add" not in r.stdout + r.stderr and "send both files" in r.stdout, r.stdout
    git(tmp_path, "init", "-q", str(work))
    dump.write_bytes(make_dump(["Another new abstract: diffusion models that sample manifolds with a learned metric."]))
    r = run_cli("add", str(dump), cwd=work)
    assert r.returncode == 0 and "next: git add" in r.stdout, r.stdout


def test_a_copy_of_raw_built_outside_the_clone_is_held_to_the_packages_own_record(history, tmp_path, monkeypatch,
                                                                                  package_record):
    """Run from a checkout, a copy of raw/ built in a folder outside any clone started a new id
    history, exit 0, saying none was published: the checkout's tags and CHANGELOG are the
    package's own record, as an installed package's bundled CHANGELOG is."""
    from neurips_abstracts.core import resources

    monkeypatch.setattr(resources, "checkout", lambda: history)  # the package runs from this clone
    published = ids_of(history / "dist")
    copy = tmp_path / "copyX"
    shutil.copytree(history / "raw", copy / "raw")
    line = one_line_refusal(tmp_path, "build", "--raw", str(copy / "raw"), "--out", str(copy / "dist"))
    assert "git tag v1.1.0 of the package's checkout" in line and "--first-release" in line, line
    r = run_cli("build", "--raw", str(copy / "raw"), "--out", str(copy / "dist"), "--previous", "1.1.0", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    keeps_published(copy / "dist", published)
    assert "ids since 1.1.0, the newest published release" in r.stdout
    r = run_cli("build", "--raw", str(copy / "raw"), "--out", str(copy / "first"), "--first-release", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "none is published yet" not in r.stdout and "since 1.1.0" in r.stdout


def test_diff_names_releases_as_build_does(history, tmp_path, package_record, monkeypatch):
    """diff kept a resolver of its own: hub:v1.1.0 was "neither a dist/ folder nor a git
    revision", and outside a clone it read the checkout's git while build asked the Hub."""
    from neurips_abstracts.record import published as record_module

    monkeypatch.setattr(record_module, "_from_hub", lambda tag, into: shutil.copytree(history / "dist", into) and into)
    r = run_cli("diff", "hub:v1.1.0", "dist", cwd=history)
    assert r.returncode == 0, r.stderr
    monkeypatch.setattr(record_module, "_package_clone", lambda: history)  # run from this checkout
    (tmp_path / "out").mkdir()
    r = run_cli("diff", "1.1.0", str(history / "dist"), cwd=tmp_path / "out")
    assert r.returncode == 0 and "1.1.0 (" in r.stdout, r.stderr


@pytest.mark.parametrize("rel", ["../escaped.txt", "/tmp/escaped.txt", "data/../../escaped.txt"])
def test_a_committed_sums_file_naming_a_path_outside_the_release_writes_nothing_there(history, tmp_path, rel):
    """release_from_git wrote into/rel for every line of a committed SHA256SUMS, '..' and absolute
    paths included."""
    from neurips_abstracts.core.errors import DumpError
    from neurips_abstracts.record.git import release_from_git

    sums = history / "dist" / SUMS
    sums.write_text(sums.read_text() + f"{'0' * 64}  {rel}\n")
    git(history, "commit", "-qam", "crafted")
    into = tmp_path / "a" / "b" / "into"
    with pytest.raises(DumpError, match="a path outside the release"):
        release_from_git("HEAD", history, into)
    assert not (tmp_path / "a" / "escaped.txt").exists() and not Path("/tmp/escaped.txt").exists()


def test_the_git_checkout_advised_names_the_release_from_where_it_runs(history, tmp_path):
    """restore_advice printed `git checkout -- dist` (the folder's name) from any folder."""
    shutil.rmtree(history / "dist")
    line = one_line_refusal(tmp_path, "build", "--raw", str(history / "raw"), "--out", str(history / "dist"))
    assert f"git -C {history.resolve()} checkout -- dist" in line, line
    (history / "sub").mkdir()
    line = one_line_refusal(history / "sub", "build", "--raw", "../raw", "--out", "../dist")
    assert "git checkout -- ../dist" in line, line


# -- found by the cold review of the record (each fails on c45a53a) ----------------------------

NEW = ["A new abstract on regret bounds for sparse linear bandits with graph feedback.",
       "Another new abstract: diffusion models that sample manifolds with a learned metric."]


def added(root: Path, tmp_path: Path, texts=NEW) -> None:
    dump = tmp_path / f"new-{len(list(tmp_path.glob('new-*.txt')))}.txt"
    dump.write_bytes(make_dump(texts))
    r = run_cli("add", str(dump), cwd=root)
    assert r.returncode == 0, r.stderr


def test_a_release_written_into_another_repository_is_measured_against_the_projects_record(
        history, tmp_path, monkeypatch):
    """`--out` inside an unrelated git repository took that repository's (empty) record for the
    project's: ids were minted under the published 1.1.0, exit 0, and the build said "first
    release". The project's own clone (raw/'s) counts too."""
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    added(history, tmp_path)
    at_version(monkeypatch, "1.1.0")
    line = one_line_refusal(history, "build", "--out", str(other / "dist"))
    assert "mint 2 new ids under version 1.1.0, which is published (git tag v1.1.0)" in line, line
    at_version(monkeypatch, "1.2.0")
    r = run_cli("build", "--out", str(other / "dist"), cwd=history)
    assert r.returncode == 0, r.stderr
    assert "ids since 1.1.0, the newest published release: 2 new" in r.stdout, r.stdout
    keeps_published(other / "dist", ids_of(history / "dist"))


def without_manifest_ids(root: Path, version: str) -> None:
    """The release commit of ``version`` remade as releases before the manifest listed their ids
    (1.1.0 of this project): its manifest without ``ids``, SHA256SUMS sealed again, tag moved."""
    from neurips_abstracts.release.contents import sha256sums

    manifest = json.loads((root / "dist" / MANIFEST).read_text())
    del manifest["ids"]
    (root / "dist" / MANIFEST).write_text(json.dumps(manifest, indent=1))
    (root / "dist" / SUMS).write_text(sha256sums(root / "dist"))
    git(root, "commit", "-q", "-a", "--amend", "--no-edit")
    git(root, "tag", "-f", f"v{version}")


def test_the_newest_release_is_kept_when_its_manifest_lists_no_ids(history, tmp_path):
    """A release whose manifest lists no ids (as 1.1.0 of this project) was never compared: a
    trial built with --first-release, then named as --previous, re-dated every id, exit 0."""
    without_manifest_ids(history, "1.1.0")
    published = ids_of(history / "dist")
    trial = tmp_path / "trial"
    assert run_cli("build", "--first-release", "--out", str(trial), cwd=history).returncode == 0
    shutil.rmtree(history / "dist")
    line = one_line_refusal(history, "build", "--previous", str(trial))
    assert "that 1.1.0, the newest published release, holds" in line and "--previous 1.1.0" in line, line
    r = run_cli("build", "--previous", "1.1.0", cwd=history)
    assert r.returncode == 0, r.stderr
    keeps_published(history / "dist", published)


def test_a_released_version_rebuilt_is_held_to_its_own_release(history, monkeypatch):
    """pyproject at the tagged 1.1.0: a --first-release (on purpose) re-dated every id; the plain
    build after it, check and publish took the re-dated folder for 1.1.0, exit 0. The plain build
    is refused now, and --previous 1.1.0 puts the released ids back over the re-dated folder."""
    at_version(monkeypatch, "1.1.0")
    published = ids_of(history / "dist")
    assert run_cli("build", "--first-release", cwd=history).returncode == 0
    assert ids_of(history / "dist") != published
    line = one_line_refusal(history, "build")
    assert "that 1.1.0, the version being rebuilt, holds" in line, line
    line = one_line_refusal(history, "check", "--no-docs")
    assert "1.1.0, the version being rebuilt" in line, line
    r = run_cli("build", "--previous", "1.1.0", cwd=history)
    assert r.returncode == 0, r.stderr
    keeps_published(history / "dist", published)


@pytest.mark.parametrize("version, new_dump, expected", [
    ("1.0.5", True, "version 1.0.5 is below 1.1.0, the newest published (git tag v1.1.0)"),
    ("1.0.0", False, "version 1.0.0 is below 1.1.0, the newest published (git tag v1.1.0)"),
    ("1.0.0", True, "mint 2 new ids under version 1.0.0, which is published (git tag v1.0.0)"),
])
def test_a_version_below_the_newest_published_is_refused(history, tmp_path, monkeypatch, version, new_dump, expected):
    """pyproject set back below the newest release: 1.0.5 minted ids after 1.1.0, and 1.0.0 (a
    published version) was made of 1.1.0's dumps, both exit 0. The bump named goes past the
    newest published version, never to one."""
    if new_dump:
        added(history, tmp_path)
    at_version(monkeypatch, version)
    line = one_line_refusal(history, "build")
    assert expected in line and "(to 1.2.0)" in line, line


def test_a_changelog_date_counts_once_committed(history, tmp_path):
    """The release step dates the version in the work tree (`diff --write-changelog`) before its
    build: a dump merged since the last build is built under it then, not refused as published.
    Once the date is committed, the version is published: a build minting under it is refused."""
    added(history, tmp_path)
    changelog = history / "CHANGELOG.md"
    title, _, rest = changelog.read_text().partition("\n\n")
    changelog.write_text(f"{title}\n\n## 1.2.0 (2026-12-05)\n\n- Released.\n\n{rest}")
    r = run_cli("build", cwd=history)
    assert r.returncode == 0, r.stderr
    git(history, "add", "-A")
    git(history, "commit", "-q", "-m", "release 1.2.0")
    added(history, tmp_path, ["A third new abstract: kernels for graphs with learned edge features and bounds."])
    line = one_line_refusal(history, "build")
    assert "under version 1.2.0, which is published (CHANGELOG.md dates version 1.2.0)" in line, line
    assert "(to 1.3.0)" in line


def test_a_moved_tag_is_no_guide_to_its_release(history):
    """Tag v1.1.0 forced onto 1.0.0's commit: the build read 1.0.0 as 1.1.0 and refused it as
    older, naming a temporary folder, with --previous 1.1.0 refused the same way. The release
    commit is the one whose dist/ holds 1.1.0, dated."""
    published = ids_of(history / "dist")
    git(history, "tag", "-f", "v1.1.0", "v1.0.0")
    git(history, "checkout", "v1.0.0", "--", "dist")
    for args in (("build",), ("build", "--previous", "1.1.0")):
        r = run_cli(*args, cwd=history)
        assert r.returncode == 0 and "neurips-abstracts-tmp" not in r.stderr, r.stderr
        keeps_published(history / "dist", published)
        git(history, "checkout", "v1.0.0", "--", "dist")


def test_a_killed_build_of_another_folder_names_the_build_that_restores_it(history, tmp_path):
    built = history / "built"
    assert run_cli("build", "--out", "built", cwd=history).returncode == 0
    built.rename(history / ".built.neurips-abstracts-old-4194302-abc123")  # a pid no process has
    line = one_line_refusal(history, "verify", "built")
    assert "the next `python build_dataset.py build --out built` restores it" in line, line
    assert run_cli("build", "--out", "built", cwd=history).returncode == 0
    assert (built / MANIFEST).is_file()


def test_a_published_version_is_not_built_on_a_later_release(history, tmp_path, monkeypatch):
    """pyproject set back to the published 1.1.0 after a build of 1.2.0 minted ids: the build on
    that 1.2.0 kept every id (nothing minted, nothing below the newest release), so 1.1.0 was
    rebuilt from other dumps holding ids first released in 1.2.0, exit 0."""
    added(history, tmp_path)
    assert run_cli("build", cwd=history).returncode == 0
    at_version(monkeypatch, "1.1.0")
    line = one_line_refusal(history, "build")
    assert "version 1.1.0 is below 1.2.0, the version of the release this build keeps (dist), and 2 of its ids" in line
    assert "set the version in pyproject.toml to 1.2.0 or later" in line and "--previous" not in line, line


def test_a_version_set_back_below_an_unreleased_build_names_the_way_back(history, tmp_path, monkeypatch):
    """A mistaken bump (1.3.0 built, never released), then set back to 1.2.0: refused while ids
    minted under 1.3.0 would be dated after it, and the way back it names works. A later build
    that minted nothing holds no id dated after 1.2.0: set back, it builds."""
    at_version(monkeypatch, "1.3.0")
    assert run_cli("build", cwd=history).returncode == 0  # nothing new: every id is 1.1.0's or older
    at_version(monkeypatch, "1.2.0")
    assert run_cli("build", cwd=history).returncode == 0
    added(history, tmp_path)
    at_version(monkeypatch, "1.3.0")
    assert run_cli("build", cwd=history).returncode == 0
    at_version(monkeypatch, "1.2.0")
    line = one_line_refusal(history, "build")
    assert "2 of its ids would be dated after 1.2.0" in line
    assert ("or build 1.2.0 on 1.1.0, the newest published release: remove dist/ and run "
            "`python build_dataset.py build --previous 1.1.0`") in line, line
    shutil.rmtree(history / "dist")
    r = run_cli("build", "--previous", "1.1.0", cwd=history)
    assert r.returncode == 0, r.stderr
    assert {row["first_release"] for row in ids_of(history / "dist").values()} <= {"1.0.0", "1.1.0", "1.2.0"}


def test_the_tags_of_another_repository_written_into_are_not_the_projects_record(history, tmp_path, monkeypatch):
    """`--out` into a folder of an unrelated repository tagged v2.0.0 (a web site's): its tag was
    taken for the project's newest release, and the build refused with advice that cannot work."""
    site = tmp_path / "site"
    git(tmp_path, "init", "-q", str(site))
    (site / "index.html").write_text("<p>the site</p>\n")
    git(site, "add", "-A")
    git(site, "commit", "-q", "-m", "site")
    git(site, "tag", "v2.0.0")
    published = ids_of(history / "dist")
    r = run_cli("build", "--out", str(site / "data"), cwd=history)
    assert r.returncode == 0, r.stderr
    assert "ids since 1.1.0, the newest published release" in r.stdout, r.stdout
    keeps_published(site / "data", published)


def test_a_release_read_from_git_is_named_as_the_user_named_it(history, tmp_path):
    """A refusal of `--previous <revision>` named the temporary folder the release was read into,
    gone by the time the user reads it."""
    trial = tmp_path / "trial"
    assert run_cli("build", "--first-release", "--out", str(trial), cwd=history).returncode == 0
    git(history, "rm", "-q", "-r", "dist")
    shutil.copytree(trial, history / "dist")
    git(history, "add", "-A")
    git(history, "commit", "-q", "-m", "a trial committed by mistake")
    line = one_line_refusal(history, "build", "--previous", "HEAD", "--out", str(tmp_path / "built"))
    assert line.startswith("--previous HEAD: error:") and "neurips-abstracts-tmp" not in line, line


def test_first_release_where_the_project_has_published_says_what_it_leads_to(history):
    """`--first-release` is on purpose; `check` and the next build refuse what it made, and it says
    so and how to go back where it is run."""
    published = ids_of(history / "dist")
    r = run_cli("build", "--first-release", cwd=history)
    assert r.returncode == 0, r.stderr
    assert "note: --first-release kept no id of 1.1.0, the newest published release" in r.stdout
    assert ("restore dist/ (`git checkout -- dist`), or remove dist/ and run "
            "`python build_dataset.py build --previous 1.1.0`") in r.stdout, r.stdout
    line = one_line_refusal(history, "check", "--no-docs")  # check names the folder it compares, not its own
    assert "drop or re-date" in line and "remove dist/ and run `python build_dataset.py build --previous 1.1.0`" in line
    assert "neurips-abstracts-tmp" not in line, line
    line = one_line_refusal(history, "build")  # the plain build names the same way back
    assert "build on 1.1.0: remove dist/ and run `python build_dataset.py build --previous 1.1.0`" in line, line
    shutil.rmtree(history / "dist")  # the way back it names
    r = run_cli("build", "--previous", "1.1.0", cwd=history)
    assert r.returncode == 0, r.stderr
    keeps_published(history / "dist", published)
    assert run_cli("check", "--no-docs", cwd=history).returncode == 0
    r = run_cli("build", "--first-release", "--previous", "1.1.0", cwd=history)
    assert r.returncode == 2 and "give one" in r.stderr  # never one silently over the other
    r = run_cli("build", "--first-release", "--out", "trial", cwd=history)  # elsewhere: the command names it
    assert r.returncode == 0 and "remove trial/ and run `python build_dataset.py build --previous 1.1.0 --out trial`" in r.stdout
    # run from above the project, with --raw and --out (one typed with a trailing slash): both named
    r = run_cli("build", "--first-release", "--raw", "project/raw", "--out", "project/trial/", cwd=history.parent)
    said = "remove project/trial/ and run `python build_dataset.py build --previous 1.1.0 --raw project/raw --out project/trial`"
    assert r.returncode == 0 and said in r.stdout, r.stdout
    shutil.rmtree(history / "trial")  # followed as printed, where it was printed
    r = run_cli("build", "--previous", "1.1.0", "--raw", "project/raw", "--out", "project/trial", cwd=history.parent)
    assert r.returncode == 0, r.stderr
    keeps_published(history / "trial", published)


def test_a_trial_carrying_a_published_version_is_no_rebuild_of_it(history, monkeypatch):
    """A --first-release trial labelled 1.0.0 (a published version) built from 1.0.0's dump and
    1.1.0's: its ids of 1.0.0 kept their first_release, so a plain build took it for 1.0.0
    rebuilt and exited 0 with 1.1.0's papers dated 1.0.0. A rebuild is that release exactly."""
    for ext in (".txt", ".json"):
        shutil.copy(SEED_DIR / f"{FIRST}{ext}", history / "raw" / f"{FIRST}{ext}")
    at_version(monkeypatch, "1.0.0")
    assert run_cli("build", "--first-release", cwd=history).returncode == 0
    line = one_line_refusal(history, "build")
    assert "never published" in line or "drop or re-date" in line, line
    assert "remove dist/ and run `python build_dataset.py build --previous 1.0.0`" in line, line
    assert one_line_refusal(history, "check", "--no-docs")


def test_a_hand_typed_v_in_a_changelog_heading_is_the_same_version(history, tmp_path):
    """`## v1.2.0 (date)` entered the record as "v1.2.0", so 1.2.0 was not known as published."""
    from neurips_abstracts.release.contents import changelog_date, has_entry, latest_release, released_versions

    text = "# Changelog\n\n## v1.2.0 (2026-12-07)\n\n- x\n\n## 1.1.0\n\n- y\n\n## 1.0.0 (2026-11-29)\n"
    assert released_versions(text) == ["1.2.0", "1.0.0"] and latest_release(text) == "1.2.0"
    assert changelog_date(text, "1.2.0") == "2026-12-07" and changelog_date(text, "1.1.0") is None
    assert has_entry(text, "1.1.0") and not has_entry(text, "1.3.0")
    added(history, tmp_path)
    assert run_cli("build", cwd=history).returncode == 0
    changelog = history / "CHANGELOG.md"
    title, _, rest = changelog.read_text().partition("\n\n")
    changelog.write_text(f"{title}\n\n## v1.2.0 (2026-12-07)\n\n- Released.\n\n{rest}")
    git(history, "add", "-A")
    git(history, "commit", "-q", "-m", "release 1.2.0")
    added(history, tmp_path, ["A third new abstract: kernels for graphs with learned edge features and bounds."])
    line = one_line_refusal(history, "build")
    assert "under version 1.2.0, which is published (CHANGELOG.md dates version 1.2.0)" in line, line


def test_advice_outside_a_clone_names_the_hub_tag_of_the_newest_release(tmp_path):
    """Outside a clone the ways out named `hub:vX.Y.Z` although the record knew 1.1.0."""
    from neurips_abstracts.record.model import Published, Record

    known = Record(None, (Published("1.1.0", "CHANGELOG.md dates version 1.1.0"),), tmp_path)
    said = known.ways_out(tmp_path / "dist")
    assert "--previous hub:v1.1.0" in said and "vX.Y.Z" not in said and "git" not in said
    assert "hub:vX.Y.Z" in Record(None, (), tmp_path).ways_out(tmp_path / "dist")  # nothing known: the form


def test_a_damaged_release_read_from_git_is_named_by_its_revision(history, tmp_path):
    """A damaged release read from a git revision named the temporary folder it was read into."""
    git(history, "checkout", "-q", "-b", "damaged")
    ids = history / "dist" / IDS
    ids.write_bytes(ids.read_bytes()[:-1] + bytes([ids.read_bytes()[-1] ^ 1]))
    git(history, "commit", "-q", "-a", "-m", "a damaged ids table")
    git(history, "checkout", "-q", "-")
    line = one_line_refusal(history, "build", "--previous", "damaged", "--out", str(tmp_path / "built"))
    assert line.startswith(f"damaged:dist/{IDS}: error: changed since the release was written"), line
    assert "neurips-abstracts-tmp" not in line


def test_a_checkout_of_an_older_release_rebuilds_it_on_its_own_release(history, monkeypatch):
    """At an older release's commit (1.0.0, after 1.1.0 was published), a plain build read 1.1.0
    from git as its anchor and was refused with advice to bump, although it is that release
    rebuilt: it now keeps the release it replaces, checked against the ids 1.0.0 published."""
    git(history, "checkout", "-q", "v1.0.0")
    before = snapshot(history / "dist")
    at_version(monkeypatch, "1.0.0")
    r = run_cli("build", cwd=history)
    assert r.returncode == 0, r.stderr
    assert snapshot(history / "dist") == before
    # the summary speaks of the version rebuilt, not of ids "since" a newer release
    assert ("ids of 1.0.0, a published version rebuilt as released (1.1.0 is the newest published): 0 new, "
            "0 merged into older papers, 0 removed") in r.stdout, r.stdout
    trial = run_cli("build", "--first-release", "--out", "trial", cwd=history)  # keeps no release: no rebuild
    assert trial.returncode == 0 and "rebuilt" not in trial.stdout, trial.stdout
    assert "ids since 1.1.0, the newest published release" in trial.stdout, trial.stdout
