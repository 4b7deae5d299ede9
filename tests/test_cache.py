"""breadth.cache: one per-user numba cache folder, set before numba loads, never over NUMBA_CACHE_DIR."""
import os
import subprocess
import sys

from breadth import cache


def test_user_choice_wins(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    assert cache.apply_default(env) == {}
    assert env == {"NUMBA_CACHE_DIR": str(tmp_path)}


def test_default_is_under_the_user_cache_folder(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    expected = str(tmp_path / "breadth" / "numba")
    assert cache.apply_default(env) == {"NUMBA_CACHE_DIR": expected}
    assert env["NUMBA_CACHE_DIR"] == expected and os.path.isdir(expected)


def test_unwritable_user_folder_falls_back_to_the_temp_folder(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    path = cache.default_cache_dir({"XDG_CACHE_HOME": str(blocker)})   # no folder can be made under a file
    assert os.path.basename(path).startswith("breadth-numba-")
    assert os.access(path, os.W_OK)


def _after_import(env):
    code = ("import os, breadth, numba.core.config as c; from breadth.kernels import direction_optimizing as d; "
            "print(os.environ['NUMBA_CACHE_DIR']); print(c.CACHE_DIR); print(d.search._cache._cache_path)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split("\n")[:3]


def test_import_points_numba_there_before_numba_loads(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    expected = str(tmp_path / "breadth" / "numba")
    var, config, kernel = _after_import(env)
    assert var == config == expected
    assert kernel.startswith(expected + os.sep)
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    var, config, kernel = _after_import(env)
    assert var == config == str(tmp_path / "mine") and kernel.startswith(config + os.sep)


def test_numba_imported_first_is_pointed_there_too(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = ("import numba, breadth; from breadth.kernels import direction_optimizing as d; "
            "print(d.search._cache._cache_path)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.startswith(str(tmp_path / "breadth" / "numba") + os.sep)
