#!/usr/bin/env bash
# Create .venv (if needed) and install breadth with all extras. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# pip warns about each find-links folder of the machine's pip configuration that does not exist;
# nothing to act on here, so those lines are dropped (every other message passes).
quiet_pip() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }
quiet_pip .venv/bin/python -m pip install -q --upgrade pip >/dev/null
# setuptools announces every editable install with an informational warning; nothing to act on.
PYTHONWARNINGS="ignore:Editable installation" quiet_pip .venv/bin/python -m pip install -q -e ".[all]"
# Compile the kernels of the common paths now (a second run only loads them from numba's cache),
# so the first search does not wait for the compiler. Not fatal: kernels otherwise compile on first use.
.venv/bin/python -m breadth warmup --quiet || echo "setup.sh: 'breadth warmup' failed; kernels will compile on first use" >&2
