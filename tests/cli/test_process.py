"""A command run as its own process sets up the process (``cli.process``); one run in a process of
the caller's leaves that process as it was."""

import gc
import json
import os
import subprocess
import sys

from neurips_abstracts.cli.process import ENVIRONMENT

from tests.helpers import ROOT, SEED_DIR, run_cli

# Runs the CLI as build_dataset.py does (``main`` reading sys.argv), noting the environment as
# numpy is first imported, then prints that and whether the collector was frozen at exit.
_PROCESS = (
    "import gc, json, os, sys\n"
    f"sys.path.insert(0, {str(ROOT / 'src')!r})\n"
    "seen = {}\n"
    "class Watch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'numpy' and not seen:\n"
    f"            seen.update((k, os.environ.get(k)) for k in {sorted(ENVIRONMENT)!r})\n"
    "sys.meta_path.insert(0, Watch())\n"
    "from neurips_abstracts.cli import main\n"
    "sys.argv = ['build_dataset.py', *sys.argv[1:]]\n"
    "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
    "print(json.dumps({'code': code, 'at_numpy_import': seen, 'frozen': gc.get_freeze_count() > 0}))\n"
)


def _process(*args: str, env: dict[str, str]) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in ENVIRONMENT}
    proc = subprocess.run([sys.executable, "-c", _PROCESS, *args], capture_output=True, text=True,
                          env={**base, **env}, timeout=300)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_command_process_loads_numpy_with_one_blas_thread_unless_told_otherwise(tmp_path):
    build = ("build", "--raw", str(SEED_DIR), "--first-release")
    done = _process(*build, "--out", str(tmp_path / "a"), env={})
    assert done == {"code": 0, "at_numpy_import": {"OPENBLAS_NUM_THREADS": "1"}, "frozen": True}
    told = _process(*build, "--out", str(tmp_path / "b"), env={"OPENBLAS_NUM_THREADS": "2"})
    assert told["code"] == 0 and told["at_numpy_import"] == {"OPENBLAS_NUM_THREADS": "2"}
    assert (tmp_path / "a" / "build_manifest.json").read_bytes() == (tmp_path / "b" / "build_manifest.json").read_bytes()


def test_a_failed_command_process_leaves_the_collector_as_it_was(tmp_path):
    """The objects are frozen only once a command has finished: a failed one exits as before,
    its garbage collected at exit."""
    failed = _process("build", "--raw", str(tmp_path / "missing"), "--out", str(tmp_path / "out"), env={})
    assert failed["code"] == 1 and failed["frozen"] is False


def test_a_command_run_in_the_callers_process_leaves_it_as_it_was(tmp_path):
    # (polars sets a variable of its allocator as it loads: only the command's own are compared)
    environ, frozen = {k: os.environ.get(k) for k in ENVIRONMENT}, gc.get_freeze_count()
    proc = run_cli("build", "--raw", str(SEED_DIR), "--out", str(tmp_path / "out"), "--first-release")
    assert proc.returncode == 0, proc.stderr
    assert {k: os.environ.get(k) for k in ENVIRONMENT} == environ and gc.get_freeze_count() == frozen
