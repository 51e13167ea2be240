"""A fork never joined, foreseen before cuStreamEndCapture (which would say only UNJOINED): the open dependency set
of every stream of the capture, and each forked stream whose last nodes the origin stream's work does not follow.
"""
from __future__ import annotations

from .findings import Finding

__all__ = ["open_dependencies"]


def _status_name(status) -> str:
    return getattr(status, "name", str(status)).replace("CU_STREAM_CAPTURE_STATUS_", "")


def open_dependencies(doctor) -> tuple[list[Finding], dict]:
    """Before cuStreamEndCapture: each stream of ``doctor``'s capture (a ``Doctor``) and its open dependency set;
    a forked stream whose set does not reach the origin's (every node of it an ancestor of, or one of, the
    origin's) is a fork never joined. Returns (those findings, stream -> the labels of its open dependencies)."""
    from ..inspect import edge_pairs, node_label

    origin = doctor._info(doctor.origin)
    if origin[0] != 0 or _status_name(origin[1]) != "ACTIVE":
        return [], {}
    graph, origin_deps = origin[3], origin[4]
    open_deps = {hex(doctor.origin): [node_label(n) for n in origin_deps]}
    others = {h: doctor._info(h) for h in doctor.streams if h != doctor.origin}
    others = {h: i for h, i in others.items()
              if i[0] == 0 and _status_name(i[1]) == "ACTIVE" and i[2] == doctor.capture_id}
    if not others:
        return [], open_deps
    preds: dict[int, list[int]] = {}
    for a, b in edge_pairs(graph):
        preds.setdefault(int(b), []).append(int(a))
    reach, todo = set(), [int(n) for n in origin_deps]
    while todo:
        n = todo.pop()
        if n not in reach:
            reach.add(n)
            todo.extend(preds.get(n, ()))
    findings = []
    for h, info in others.items():
        labels = [node_label(n) for n in info[4]]
        open_deps[hex(h)] = labels
        dangling = [(n, lab) for n, lab in zip(info[4], labels) if int(n) not in reach]
        if dangling:
            findings.append(Finding(
                "unjoined", "cuStreamEndCapture", stream=hex(h), where=str(doctor.begun_at or ""),
                result="CUDA_ERROR_STREAM_CAPTURE_UNJOINED (foreseen before the end)",
                detail=f"stream {hex(h)} forked into the capture at {doctor.fork_sites.get(h, '?')} and never "
                       f"joined back: its last node"
                       f"{'s' if len(dangling) > 1 else ''} {', '.join(lab for _, lab in dangling)} "
                       f"{'are' if len(dangling) > 1 else 'is'} not followed by any work of the origin stream",
                seen=True))
    return findings, open_deps
