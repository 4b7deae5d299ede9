#!/usr/bin/env bash
# Create .venv (if needed) and install breadth with all extras. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
# setuptools announces every editable install with an informational warning; nothing to act on.
PYTHONWARNINGS="ignore:Editable installation" .venv/bin/python -m pip install -q -e ".[all]"
# Compile the kernels of the common paths now (a second run only loads them from numba's cache),
# so the first search does not wait for the compiler. Not fatal: kernels otherwise compile on first use.
.venv/bin/python -m breadth warmup --quiet || echo "setup.sh: 'breadth warmup' failed; kernels will compile on first use" >&2
