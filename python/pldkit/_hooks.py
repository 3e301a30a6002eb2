"""Run a function on a module once it is imported, whenever that happens.

pldkit.opacus and pldkit.dp_accounting plug themselves into Opacus and
dp_accounting without importing them (importing Opacus imports torch): for
each module named here, the function runs at once if the module is already
in sys.modules, and otherwise right after the module's code has run, by a
finder on sys.meta_path that wraps the loader the other finders return.
Nothing else about the import changes (the module, its spec and its loader's
other methods are the real ones)."""

import importlib.abc
import sys
import threading

_lock = threading.RLock()
_pending = {}   # module name -> [function, ...] still to run


def after_import(name, function):
    """Call function(module) once the module `name` is imported (now, if it
    already is).  An exception in the function propagates to the import
    statement (a failed patch must not pass silently)."""
    with _lock:
        module = sys.modules.get(name)
        if module is None:
            _pending.setdefault(name, []).append(function)
            if _FINDER not in sys.meta_path:
                sys.meta_path.insert(0, _FINDER)
            return
    function(module)


class _Loader(importlib.abc.Loader):
    """The real loader, with the pending functions run after exec_module."""

    def __init__(self, loader, name):
        self._loader = loader
        self._name = name

    def __getattr__(self, attr):
        return getattr(self._loader, attr)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        with _lock:
            functions = _pending.pop(self._name, [])
        for f in functions:
            f(module)


class _Finder(importlib.abc.MetaPathFinder):

    def find_spec(self, name, path, target=None):
        with _lock:
            if name not in _pending:
                return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, name)
        return spec


_FINDER = _Finder()
