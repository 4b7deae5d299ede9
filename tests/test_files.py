"""breadth.files.atomic_output: the one atomic writer (graph files, results, checkpoints, CLI output, plots)."""
import os
import stat

import numpy as np
import pytest

import breadth
from breadth import InputError
from breadth.files import TEMP_NAME, atomic_output


def test_replaces_only_on_success(tmp_path):
    p = tmp_path / "out.bin"
    p.write_bytes(b"old")
    with atomic_output(p) as f:
        f.write(b"new")
        names = os.listdir(tmp_path)
        assert p.read_bytes() == b"old"                      # not visible before the block ends
        temp = [n for n in names if n != "out.bin"]
        assert len(temp) == 1 and TEMP_NAME.match(temp[0]) and temp[0].startswith(".out.bin.")
    assert p.read_bytes() == b"new" and os.listdir(tmp_path) == ["out.bin"]
    with pytest.raises(RuntimeError):
        with atomic_output(p, "w") as f:
            f.write("half")
            raise RuntimeError("boom")
    assert p.read_bytes() == b"new" and os.listdir(tmp_path) == ["out.bin"]


def test_text_mode_fsync_and_permissions(tmp_path):
    p = tmp_path / "a.txt"
    old = os.umask(0o027)
    try:
        with atomic_output(p, "w", fsync=True) as f:
            f.write("x\n")
    finally:
        os.umask(old)
    assert p.read_text() == "x\n"
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o640          # as open() would have made it


def test_bad_targets_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="directory .* does not exist"):
        with atomic_output(tmp_path / "missing" / "x"):
            pass
    with pytest.raises(InputError, match="is a directory"):
        with atomic_output(tmp_path):
            pass
    p = tmp_path / "x"
    with pytest.raises(InputError, match=r"x: no space left on device"):
        with atomic_output(p):
            raise OSError(28, "No space left on device")
    with pytest.raises(ValueError, match="custom x"):
        with atomic_output(p, on_error=lambda path, exc: ValueError(f"custom {os.path.basename(path)}")):
            raise OSError(5, "I/O error")
    assert os.listdir(tmp_path) == []


def test_native_save_is_atomic(tmp_path):
    g = breadth.kronecker(6)
    breadth.save(g, tmp_path / "g")
    assert os.listdir(tmp_path) == ["g.npz"]
    assert np.array_equal(breadth.load(tmp_path / "g.npz").indices, g.indices)
    with pytest.raises(InputError, match="does not exist"):
        breadth.save(g, tmp_path / "nodir" / "g.npz")
    assert os.listdir(tmp_path) == ["g.npz"]
