"""The objects the API reference documents: the ``::: dotted.path`` entries of docs/api/*.md."""
import importlib
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
API = os.path.join(ROOT, "docs", "api")
PUBLIC = ["breadth", "breadth.graph", "breadth.multisource", "breadth.graph500", "breadth.distributed",
          "breadth.gpu", "breadth.nx.interface"]
# names whose object can only be loaded with a GPU or numba-cuda's simulator (checked by path otherwise)
NEEDS_CUDA = {("breadth.gpu", "DeviceGraph"): "breadth.gpu.graph.DeviceGraph",
              ("breadth.gpu", "bfs"): "breadth.gpu.api.bfs"}


def entries():
    found = []
    for name in sorted(os.listdir(API)):
        if name.endswith(".md"):
            text = open(os.path.join(API, name)).read()
            found += re.findall(r"^:::\s+([\w.]+)\s*$", text, re.M)
    return found


def resolve(path):
    """The object a dotted path names, importing the longest importable module prefix."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)
