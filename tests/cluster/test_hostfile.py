"""Open MPI hostfiles: reading them (slots, comments, errors) and placing ranks by slot."""
import pytest

from breadth.cluster import hostfile
from breadth.errors import InputError


def test_hostfile_parse_and_place():
    entries = hostfile.parse("# cluster\nn1 slots=2\n\nn2   # one slot\nn3 slots=4 max_slots=8\n")
    assert entries == [hostfile.Entry("n1", 2), hostfile.Entry("n2", 1), hostfile.Entry("n3", 4)]
    assert hostfile.place(entries, 5) == [2, 1, 2] and hostfile.place(entries, 9) == [2, 1, 4]
    with pytest.raises(InputError, match="line 1: cannot read 'cpus=2'"):
        hostfile.parse("n1 cpus=2\n", "h")
    with pytest.raises(InputError, match="names no hosts"):
        hostfile.parse("# nothing\n")


def test_hostfile_write_reads_back(tmp_path):
    entries = [hostfile.Entry("127.77.0.11", 2), hostfile.Entry("127.77.0.12", 1)]
    path = hostfile.write(str(tmp_path / "hosts"), entries)
    assert hostfile.read(path) == entries
    with pytest.raises(InputError, match="cannot read hostfile"):
        hostfile.read(str(tmp_path / "missing"))
