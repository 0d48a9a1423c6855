"""Setup (issue 23): tools/setup_env.sh installs into virtual environments
under .venv/, never into the system's Python, and the README's test
command runs the suite in .venv/main."""
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def shell_lines(path):
    """The script's commands: comments dropped, continuation lines joined."""
    text = path.read_text().replace("\\\n", " ")
    return [line.split(" #")[0].strip() for line in text.splitlines() if not line.strip().startswith("#")]


def test_setup_pip_installs_only_into_virtual_environments():
    pips = [line for line in shell_lines(ROOT / "tools" / "setup_env.sh") if "pip install" in line]
    assert pips, "setup_env.sh installs nothing from PyPI?"
    for line in pips:
        # "$venv/bin/python -m pip", or the one fallback that makes a venv
        # where python3 -m venv is missing (virtualenv itself)
        into_venv = '"$venv/bin/python" -m pip install' in line
        fallback = re.search(r"\$PY -m pip install .*virtualenv\s*$", line)
        assert into_venv or fallback, line


def test_every_script_that_runs_python_uses_the_projects_environment():
    for rel in ("tools/run_tests.sh", "tools/run_sanitized.sh", "tools/run_tsan.sh", "tools/run_bench.sh",
                "tools/devbuild.sh", "tools/run_demo.sh", "tools/run_valgrind.sh", "fuzz/run_python.sh"):
        text = (ROOT / rel).read_text()
        assert '. "$here/tools/env.sh"' in text, rel
    env = (ROOT / "tools" / "env.sh").read_text()
    assert ".venv/main/bin" in env
    assert ".venv/" in (ROOT / ".gitignore").read_text().split()


@pytest.mark.skipif(not os.environ.get("GAMEANIM_TEST_COMMAND"), reason="only under tools/run_tests.sh")
def test_the_test_command_runs_in_the_projects_venv():
    assert Path(sys.prefix).resolve() == (ROOT / ".venv" / "main").resolve(), sys.prefix
    assert sys.prefix != sys.base_prefix
