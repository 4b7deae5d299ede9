"""Open MPI hostfiles: ``HOST [slots=N] [max_slots=N]`` a line, ``#`` comments."""
from __future__ import annotations

import dataclasses

from ..errors import InputError


@dataclasses.dataclass(frozen=True)
class Entry:
    host: str
    slots: int = 1


def parse(text: str, where: str = "hostfile") -> list[Entry]:
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        host, *fields = line.split()
        slots = 1
        for f in fields:
            key, _, value = f.partition("=")
            if key in ("slots", "max_slots", "max-slots") and value.isdigit() and int(value) >= 1:
                if key == "slots":
                    slots = int(value)
            else:
                raise InputError(f"{where} line {number}: cannot read {f!r} (expected slots=N or max_slots=N)")
        entries.append(Entry(host, slots))
    if not entries:
        raise InputError(f"{where} names no hosts")
    return entries


def read(path: str) -> list[Entry]:
    try:
        with open(path) as f:
            text = f.read()
    except OSError as exc:
        raise InputError(f"cannot read hostfile {path}: {exc.strerror or exc}") from None
    return parse(text, path)


def write(path: str, entries) -> str:
    with open(path + ".tmp", "w") as f:
        f.writelines(f"{e.host} slots={e.slots}\n" for e in entries)
    import os

    os.replace(path + ".tmp", path)
    return path


def place(entries: list[Entry], ranks: int) -> list[int]:
    """Ranks per entry when ``ranks`` fill the hosts' slots in order (Open MPI's default by-slot map)."""
    out, left = [], ranks
    for e in entries:
        k = min(e.slots, left)
        out.append(k)
        left -= k
    return out
