"""The native ways of ``studies.exec_update.measure``: a Python call landing in C (``studies.exec_update.native_update``) beside
the C loop.

Two ways, each a block of K updates of the executable, timed with ``perf_counter_ns`` around the block:

* ``native``: ``NativeExecUpdate(exe, graph).fire()``, a CPython builtin whose C body is one
  cuGraphExecUpdate_v2(exe, graph, &info), the result info in C memory; one prepared object per source graph,
  alternating as the other ways do;
* ``native set params, all nodes``: the same state reached node by node, where the API allows it: per update one
  ``NativeKernelNodeSetParams(exe, node, launch).fire()`` per kernel node (cuGraphExecKernelNodeSetParams_v2 with a
  CUDA_KERNEL_NODE_PARAMS prepared in C memory), the launches those of the case's source graph. Its figure is µs
  per update of all nodes (4 driver calls for the chain), against one cuGraphExecUpdate.

Both call the C loop's own entry points (``UpdateFloor.entry``; libcuda's cuGraphExecKernelNodeSetParams_v2 beside
it), so they exist only where the C loop does.
"""
from __future__ import annotations

from typing import Callable

from cugraphlab.core.errors import CugraphlabError, NoDeviceError, UnsupportedError

__all__ = ["NATIVE_WAYS", "NATIVE_UPDATE", "NATIVE_SET_PARAMS", "open_native_ways", "close_ways"]

NATIVE_UPDATE = "native"
NATIVE_SET_PARAMS = "native set params, all nodes"
NATIVE_WAYS = {
    NATIVE_UPDATE: "graphs.native_update.NativeExecUpdate.fire: a builtin whose C body is cuGraphExecUpdate_v2",
    NATIVE_SET_PARAMS: "NativeKernelNodeSetParams.fire once per kernel node (cuGraphExecKernelNodeSetParams_v2): "
                       "us per update of all nodes",
}


def _default_factories(floor):
    """(update factory, set-params factory) on the floor's entry points, or raise why there are none."""
    from studies.exec_update.native_update import NativeExecUpdate, NativeKernelNodeSetParams, set_params_entry

    entry = dict(getattr(floor, "entry", None) or {})
    update = entry.get("cuGraphExecUpdate_v2")
    if update is None:
        raise UnsupportedError("the C update loop gives no cuGraphExecUpdate_v2 entry point")
    set_params = entry.get("cuGraphExecKernelNodeSetParams_v2") or set_params_entry()

    def make_update(exe, graph):
        return NativeExecUpdate(exe, graph, exec_update=update)

    def make_set_params(exe, node, launch, graph):
        return NativeKernelNodeSetParams(exe, node, launch, set_params=set_params)

    return make_update, make_set_params


def open_native_ways(floor, update_factory=None, set_params_factory=None):
    """(``ways(exe, graphs, launches_of, nodes) -> dict``, "") or (None, why not).

    ``ways`` gives ``way -> run(k) -> ns`` for the two native ways on ``graphs`` (two source graphs, alternated);
    ``launches_of[int(graph.handle)]`` are the launches (one per kernel node, in ``nodes``' order) whose arguments
    that graph holds; ``nodes`` the kernel nodes of the graph ``exe`` was instantiated from. The dict's ``"_keep"``
    holds the prepared objects: the caller closes them (``close_ways``). ``update_factory(exe, graph)`` and
    ``set_params_factory(exe, node, launch, graph)`` replace the defaults on ``floor``'s entry points (tests; the
    set-params factory is told the graph whose parameters the launch holds, for fakes that keep a ledger).
    """
    try:
        if update_factory is None or set_params_factory is None:
            if floor is None:
                return None, "no C update loop (the native ways call its entry points)"
            from studies.exec_update.native_update import native_update_library

            made = _default_factories(floor)
            update_factory = update_factory or made[0]
            set_params_factory = set_params_factory or made[1]
            native_update_library()  # build (or load) the C now: a failure is one note, not a failed measurement
    except (UnsupportedError, NoDeviceError) as e:
        return None, str(e).splitlines()[0]
    except CugraphlabError as e:
        return None, f"the native update did not build: {str(e).splitlines()[0]}"

    def ways(exe, graphs, launches_of, nodes) -> dict[str, Callable[[int], int]]:
        import time

        perf = time.perf_counter_ns
        objects: list = []
        fires = []
        groups = []
        for g in graphs:
            upd = update_factory(exe, g)
            objects.append(upd)
            fires.append(upd.fire)
            sps = [set_params_factory(exe, node, launch, g) for node, launch in zip(nodes, launches_of[int(g.handle)])]
            objects += sps
            groups.append(tuple(sp.fire for sp in sps))

        def native(k: int) -> int:
            t0 = perf()
            for i in range(k):
                fires[i & 1]()
            return perf() - t0

        def set_params(k: int) -> int:
            t0 = perf()
            for i in range(k):
                for fire in groups[i & 1]:
                    fire()
            return perf() - t0

        return {NATIVE_UPDATE: native, NATIVE_SET_PARAMS: set_params, "_keep": objects}  # type: ignore[dict-item]

    return ways, ""


def close_ways(objects) -> None:
    """Close the prepared native objects of one ``ways(...)`` (a later fire of theirs raises, calls nothing)."""
    for o in objects or ():
        o.close()
