"""Lazy subpackages: a package's public names, each loaded from its module on first use.

A subpackage's ``__init__`` lists which module defines each public name and calls ``exports``; importing the
package then loads none of its modules, so that ``import cugraphlab.core.errors`` (or a worker process that must
import nothing before its path is set) pays only for what it uses, and no floor is loaded by accident.

A name that is not there any more says where it went (``missing``; the one table is ``_moves``): the packages'
``__getattr__`` raise ``AttributeError("cugraphlab.resolve_arch moved to cugraphlab.core.resolve_arch")``, and
``MovedFinder`` (installed last on ``sys.meta_path`` by ``cugraphlab/__init__``) gives ``import cugraphlab.compiler``
and ``from cugraphlab import resolve_arch`` the same sentence, where Python would say only "cannot import name".
"""
from __future__ import annotations

import importlib
import importlib.abc
import pkgutil
import sys
from typing import Callable, Mapping, Sequence


def exports(package: str, modules: Mapping[str, Sequence[str]]) -> tuple[list[str], Callable, Callable]:
    """``(__all__, __getattr__, __dir__)`` for ``package``, whose module ``m`` (relative, e.g. ``"stats.summary"``)
    defines the names ``modules[m]``. A name listed twice is a bug (TypeError)."""
    where: dict[str, str] = {}
    for module, names in modules.items():
        for name in names:
            if name in where:
                raise TypeError(f"{package}: {name!r} is listed under {where[name]!r} and {module!r}")
            where[name] = module
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        module = where.get(name)
        if module is None:
            raise missing(package, name)
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    # A name that is also a submodule's (graphs.capture the function, graphs/capture.py the module) is bound now:
    # once the submodule is imported, by anyone, the import system sets the package's attribute to the module, and
    # __getattr__ would never be asked for the function.
    path = namespace.get("__path__", ())
    for info in pkgutil.iter_modules(path):
        if info.name in where:
            __getattr__(info.name)
    return sorted(where), __getattr__, __dir__


def missing(package: str, name: str) -> AttributeError:
    """The AttributeError for ``package.name``: where it went (``_moves``), or Python's own words."""
    from ._moves import moved

    text = moved(f"{package}.{name}") if not name.startswith("__") else None
    return AttributeError(text or f"module {package!r} has no attribute {name!r}", name=name)


class MovedFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: asked only for a module no other finder found. For one of ours that moved (a
    module, or a name looked for as a submodule by ``from cugraphlab import name``) it raises ImportError with
    where it went; for anything else it answers None, as if it were not there."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("cugraphlab."):
            return None
        from ._moves import MODULES, moved

        text = moved(fullname)
        if text is None:
            return None
        if fullname in MODULES:
            raise ModuleNotFoundError(text, name=None)  # name=None: importlib's "from x import y" passes it on
        raise ImportError(text)


def install_moved_finder() -> None:
    """Put one MovedFinder last on ``sys.meta_path`` (once, whatever reloads happen)."""
    if not any(type(f).__name__ == "MovedFinder" and type(f).__module__ == __name__ for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())
