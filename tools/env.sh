# Sourced by the tools' scripts after they set $here (the repository root):
# puts the project's own virtual environment, .venv/main (made by
# tools/setup_env.sh, git-ignored), first on PATH, so that `python3` in the
# scripts is its interpreter (pytest, setuptools, the bpy 5.0 module, mypy,
# atheris) and nothing is installed into the system's Python.  Without it
# (setup not run yet) the system's python3 is used.
if [ -x "$here/.venv/main/bin/python3" ]; then
    PATH="$here/.venv/main/bin:$PATH"
    export PATH
fi
