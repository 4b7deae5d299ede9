#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite.
#
# NUMBA_ENABLE_CUDASIM: the GPU tests (tests/gpu) run numba-cuda's simulator unless told
# otherwise. The variable fixes what numba.cuda is when it is first imported, so it is set
# here, once, for the whole run (every test and subprocess sees the same value); on a
# machine with a GPU, `NUMBA_ENABLE_CUDASIM=0 ./test.sh` runs the same tests on it.
#
# BREADTH_TEST_WORKERS: pytest-xdist workers (default 2; 0 runs every test in this process).
# Most tests wait on subprocesses (MPI jobs, namespace hosts); the tests that launch them and
# the benchmarks-as-tests form one xdist group that a single worker runs in order
# (tests/conftest.py), the other worker shares the rest. The 20 slowest tests are listed at the end.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NUMBA_ENABLE_CUDASIM="${NUMBA_ENABLE_CUDASIM:-1}"
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n "${BREADTH_TEST_WORKERS:-2}" --dist loadgroup \
    --durations=20 "$@"
