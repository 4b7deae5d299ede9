#!/usr/bin/env bash
# One-shot check of breadth's GPU path (bench/gpu_check.py; docs/guide/gpu-check.md).
#
# Runs from the working tree alone, without network: breadth is imported from this
# checkout through PYTHONPATH, with the packages of whichever Python runs it ($PYTHON,
# else this checkout's .venv, else python3). A hard limit (the budget plus a margin)
# bounds the whole run even if the driver itself were stuck.
#   bench/gpu_check.sh                 # on a GPU machine: about 7 minutes, report in $OUT
#   bench/gpu_check.sh --sim           # numba-cuda's simulator, tiny graphs (what CI runs)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${PYTHON:-}" ]; then PY=$PYTHON
elif [ -x .venv/bin/python ]; then PY=.venv/bin/python
elif command -v python3 >/dev/null; then PY=python3
else PY=python
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
budget=420
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
        --sim) [ "$budget" = 420 ] && budget=300 ;;
        --budget) budget=${args[i+1]:-$budget} ;;
        --budget=*) budget=${args[i]#--budget=} ;;
    esac
done
case "${budget%.*}" in
    '' | *[!0-9]*) hard=600 ;;          # not a number: bench/gpu_check.py rejects it
    *) hard=$(( ${budget%.*} + 90 )) ;;
esac
if command -v timeout >/dev/null; then
    exec timeout -k 10 "$hard" "$PY" bench/gpu_check.py "$@"
fi
exec "$PY" bench/gpu_check.py "$@"
