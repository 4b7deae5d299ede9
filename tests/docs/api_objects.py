"""The objects the API reference documents: the ``::: dotted.path`` entries of docs/api/*.md."""
import importlib
import inspect
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


def entry_options(option):
    """{entry: its option ``option`` as written (a list, "false", "true"), or None} of the API pages."""
    found = {}
    for name in sorted(os.listdir(API)):
        if name.endswith(".md"):
            text = open(os.path.join(API, name)).read()
            for m in re.finditer(r"^:::\s+([\w.]+)[ \t]*\n((?:[ \t]+\S.*\n)*)", text, re.M):
                opt = re.search(rf"^\s*{option}:\s*(\[[^\]]*\]|false|true)\s*$", m.group(2), re.M)
                found[m.group(1)] = opt.group(1) if opt else None
    return found


def member_options():
    """{entry: its ``members:`` option as written (a list, "false"), or None} of the API pages."""
    return entry_options("members")


def defined(cls, name):
    """The class attribute ``name`` as the nearest class of ``cls``'s MRO defines it (no descriptor
    binding), or None: a ``members:`` list may name a method of a base class (the entry then sets
    ``inherited_members``)."""
    for klass in cls.__mro__[:-1]:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def rendered_members(path, cls):
    """The methods and properties of class ``cls`` that its entry renders: its ``members:`` list
    (methods of a base class included), or (mkdocstrings' default) the public ones defined in the
    class itself, and in its base classes with ``inherited_members: true``."""
    option = member_options().get(path)
    if option == "false":
        return []
    if option and option.startswith("["):
        names = [n.strip() for n in option.strip("[]").split(",") if n.strip()]
    elif entry_options("inherited_members").get(path) == "true":
        names = list(dict.fromkeys(n for klass in cls.__mro__[:-1] for n in vars(klass) if not n.startswith("_")))
    else:
        names = [n for n in vars(cls) if not n.startswith("_")]
    kinds = (property, classmethod, staticmethod)
    found = [(n, defined(cls, n)) for n in names]
    return [(n, m) for n, m in found if inspect.isfunction(m) or isinstance(m, kinds)]
