#!/usr/bin/env bash
# `make lab`: JupyterLab on the project's environment, for editing the notebooks as notebooks.
#  - a click on notebooks/*.py opens it as a notebook (jupytext's contents manager, its "Jupytext Notebook" viewer
#    made the default for Python files by scripts/lab/overrides.json); MyST prose is rendered (jupyterlab-myst);
#  - saving writes the .py back, inputs only: outputs are never written to the repository;
#  - the kernel is the venv's Python: the notebooks name `python3`, which a JupyterLab of the venv starts with the
#    venv's interpreter; the same interpreter is registered as the `pluralign` kernel for other front ends;
#  - heavy steps reuse the book's cache (.cache/pluralign) unless PLURALIGN_CACHE is set, so "Run All" on a page
#    the book has built recomputes nothing.
# Arguments go to `jupyter lab` (e.g. `make lab LAB_ARGS="--no-browser --port 8890"`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/.venv/bin}
"$BIN/python" -m ipykernel install --sys-prefix --name pluralign --display-name "Python (pluralign)" >/dev/null
export PLURALIGN_CACHE=${PLURALIGN_CACHE:-$ROOT/.cache/pluralign}
# scripts/lab/jupyter_server_config.json: jupytext writes a notebook's header back as it was (no version stamp)
export JUPYTER_CONFIG_PATH=$ROOT/scripts/lab${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}
extra=()
[ "$(id -u)" -eq 0 ] && extra+=(--allow-root)   # a container's root user (JupyterLab refuses root otherwise)
cd "$ROOT"   # the file browser's root (another with --ServerApp.root_dir=DIR)
exec "$BIN/jupyter" lab "${extra[@]}" --LabApp.app_settings_dir="$ROOT/scripts/lab" "$@"
