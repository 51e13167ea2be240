"""Lazy subpackages: a package's public names, each loaded from its module on first use.

A subpackage's ``__init__`` lists which module defines each public name and calls ``exports``; importing the
package then loads none of its modules, so that ``import cugraphlab.core.errors`` (or a worker process that must
import nothing before its path is set) pays only for what it uses, and no floor is loaded by accident.
"""
from __future__ import annotations

import importlib
import pkgutil
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
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
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
