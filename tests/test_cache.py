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
    expected = str(tmp_path / "breadth" / "numba" / cache.source_tag())
    assert cache.apply_default(env) == {"NUMBA_CACHE_DIR": expected}
    assert env["NUMBA_CACHE_DIR"] == expected and os.path.isdir(expected)


def test_unwritable_user_folder_falls_back_to_the_temp_folder(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    path = cache.default_cache_dir({"XDG_CACHE_HOME": str(blocker)})   # no folder can be made under a file
    assert os.path.basename(os.path.dirname(path)).startswith("breadth-numba-")
    assert os.access(path, os.W_OK)


def _after_import(env):
    code = ("import os, breadth, numba.core.config as c; from breadth.kernels import direction_optimizing as d; "
            "print(os.environ['NUMBA_CACHE_DIR']); print(c.CACHE_DIR); print(d.search._cache._cache_path)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split("\n")[:3]


def test_import_points_numba_there_before_numba_loads(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    expected = str(tmp_path / "breadth" / "numba" / cache.source_tag())
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


def test_each_version_of_the_sources_has_its_own_folder(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("def f(): pass\n")
    (pkg / "sub" / "b.py").write_text("def g(): pass\n")
    (pkg / "notes.txt").write_text("not a source")
    tag = cache.source_tag(str(pkg))
    assert tag.startswith("src-") and tag == cache.source_tag(str(pkg))
    (pkg / "notes.txt").write_text("still not a source")
    assert cache.source_tag(str(pkg)) == tag
    (pkg / "sub" / "b.py").rename(pkg / "b.py")               # a module moved: another version
    moved = cache.source_tag(str(pkg))
    assert moved != tag
    (pkg / "a.py").write_text("def f(): return 1\n")         # an edit: another version
    assert cache.source_tag(str(pkg)) not in (tag, moved)


def test_prune_removes_other_versions_and_old_folders_unused_for_a_week(tmp_path):
    root = tmp_path / "numba"
    own, recent, old, unversioned = root / "src-aaa", root / "src-bbb", root / "src-ccc", root / "bfs_0123"
    for folder in (own, recent, old, unversioned):
        folder.mkdir(parents=True)
        (folder / "k.nbi").write_text("x")
    week_ago = 1e9 - cache.STALE_SECONDS - 1
    for folder in (old, unversioned):
        os.utime(folder / "k.nbi", (week_ago, week_ago))
    os.utime(recent / "k.nbi", (1e9 - 3600, 1e9 - 3600))
    os.utime(own / "k.nbi", (week_ago, week_ago))
    assert cache.prune(str(own), now=1e9) == [str(unversioned), str(old)]
    assert own.is_dir() and recent.is_dir() and not old.exists() and not unversioned.exists()
    assert cache.prune(str(tmp_path / "users-own-dir"), now=1e9) == []   # a NUMBA_CACHE_DIR of the user's
