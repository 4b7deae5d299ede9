"""breadth.omp_env: a short OpenMP spin by default, never over the user's own choice."""
import os
import subprocess
import sys

from breadth import omp_env


def test_sets_spin_count_when_nothing_chosen():
    env = {"PATH": "/bin"}
    assert omp_env.apply_defaults(env) == {"GOMP_SPINCOUNT": omp_env.SPIN_COUNT}
    assert env["GOMP_SPINCOUNT"] == omp_env.SPIN_COUNT


def test_user_choice_wins():
    for key, value in (("OMP_WAIT_POLICY", "active"), ("GOMP_SPINCOUNT", "infinite")):
        env = {key: value}
        assert omp_env.apply_defaults(env) == {}
        assert env == {key: value}


def _env_after_import(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(extra)
    code = "import os, breadth; print(os.environ.get('GOMP_SPINCOUNT'), breadth.omp_env.APPLIED)"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.split(None, 1)


def test_import_applies_it_before_any_parallel_code():
    assert _env_after_import() == [omp_env.SPIN_COUNT, "{'GOMP_SPINCOUNT': '%s'}\n" % omp_env.SPIN_COUNT]
    assert _env_after_import(OMP_WAIT_POLICY="passive") == ["None", "{}\n"]
