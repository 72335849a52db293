#!/usr/bin/env bash
# Create/refresh the project-local .venv (Python 3.11) whenever requirements-dev.txt changes.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    echo "SoftFEM development needs Python 3.11 (bpy 5.0.1); found $("$PY" --version)" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
if ! cmp -s requirements-dev.txt .venv/requirements-dev.stamp; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -r requirements-dev.txt
    cp requirements-dev.txt .venv/requirements-dev.stamp
fi
