#!/usr/bin/env bash
# Create .venv (if needed) and install breadth with all extras. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
# setuptools announces every editable install with an informational warning; nothing to act on.
PYTHONWARNINGS="ignore:Editable installation" .venv/bin/python -m pip install -q -e ".[all]"
