"""The whole-process switch of the capture doctor (the ``cugraphlab doctor`` command): ``explain_all`` explains
every capture made meanwhile, ``run_explained`` runs a script or module under it and under the stack watch
(graphs.doctor.watch), and prints an exception the script raised from the script's first frame on.
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from .findings import Diagnosis

__all__ = ["explaining", "explaining_with_cupti", "explain_all", "run_explained"]


# --- the whole-process switch (the ``cugraphlab doctor`` command) ------------------------------------------------
_session: list[Diagnosis] | None = None
_session_cupti = False


def record(d: Diagnosis) -> None:
    """Append a capture's diagnosis to the session's list (inside ``explain_all()``; nothing outside it)."""
    if _session is not None:
        _session.append(d)


def explaining() -> bool:
    """Whether captures made without ``explain=`` are explained (inside ``explain_all()``)."""
    return _session is not None


def explaining_with_cupti() -> bool:
    """Whether captures made without ``cupti=`` use the CUPTI mode (inside ``explain_all(cupti=True)``)."""
    return _session is not None and _session_cupti


@contextlib.contextmanager
def explain_all(cupti: bool = False):
    """Within the block every ``graphs.capture(...)`` made without ``explain=`` is explained (with ``cupti``: in
    the CUPTI mode, graphs.doctor.cupti); yields the list its diagnoses are appended to, in the order the captures
    ended. ``cupti=True`` loads cupti-python first (UnsupportedError without it)."""
    global _session, _session_cupti
    if cupti:
        from .cupti import cupti_library

        cupti_library()
    previous, _session = _session, []
    previous_cupti, _session_cupti = _session_cupti, bool(cupti)
    try:
        yield _session
    finally:
        _session, _session_cupti = previous, previous_cupti


def run_explained(target: str, argv: list[str] | None = None, *, module: bool = False,
                  cupti: bool = False, replay: bool = False) -> tuple[int, list]:
    """Run a Python file, or a folder holding ``__main__.py`` (``runpy.run_path``), or a module (``module=True``:
    ``runpy.run_module``) as ``__main__``, with ``sys.argv`` set to ``[target, *argv]``, under ``explain_all(cupti)``
    and the stack watch (``replay``: with the replay watch of cugraphlab's own graphs, graphs.doctor.launches).

    Returns (the script's exit code, the diagnoses of every capture it made through cugraphlab, then those of the
    captures PyTorch, CuPy and cuda.core made, graphs.doctor.stacks). An exception the
    script raised is printed as Python would print it, from the script's first frame on (the doctor's and runpy's
    frames left out), and counts 1. Raises, with nothing printed: InvalidArgumentError (one line) when the script
    could not start (a syntax error in it, no such module, not Python), and the script's NoDeviceError when it
    ended for want of a GPU (also when that error is the cause or context of the one it raised), so that the
    CLI says "no usable GPU" in one line with exit 2, as every command does."""
    import runpy

    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    sys.argv = [target, *(argv or [])]
    if not module:
        where = Path(target).resolve()
        sys.path.insert(0, str(where if where.is_dir() else where.parent))
    from .watch import watching_stacks

    code = 0
    with explain_all(cupti) as diagnoses, watching_stacks(replay) as stacks:
        try:
            if module:
                runpy.run_module(target, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(target, run_name="__main__")
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except Exception as e:
            stacks.post_mortem(e)
            code = _script_failed(target, module, e)
        finally:
            sys.argv = saved_argv
            if not module and sys.path and sys.path[0] != saved_path0:
                del sys.path[0]
    return code, list(diagnoses) + _not_seen_twice(list(diagnoses), stacks.diagnoses())


def _not_seen_twice(ours: list, theirs: list) -> list:
    """The stack watch's diagnoses without those of "a capture the doctor did not see begin" whose first finding
    is at the line of a culprit the door already named (a cugraphlab capture's error, seen again as the script's
    exception)."""
    named = {f.where for d in ours for f in d.findings[:1] if f.where}
    return [d for d in theirs if not (d.where.startswith("(a capture the doctor did not see begin)")
                                      and d.findings and d.findings[0].where in named)]


def _script_failed(target: str, module: bool, e: Exception) -> int:
    """What ``run_explained`` does with an exception out of the script: raise or print (see there); returns 1."""
    import traceback

    from ...core.errors import InvalidArgumentError, NoDeviceError

    no_gpu = _in_chain(e, NoDeviceError)
    if no_gpu is not None:
        raise no_gpu.with_traceback(None) from None
    tb = _user_frames(e.__traceback__)
    if tb is None:  # the script never ran a line of its own: it could not be started
        what = f"-m {target}" if module else target
        if isinstance(e, SyntaxError) and not module:
            where = f"line {e.lineno}: " if e.lineno else ""
            raise InvalidArgumentError(f"{what}: {where}{e.msg} (a syntax error: the script did not start)") from None
        text = str(e).splitlines()[0] if str(e) else "could not be run"
        raise InvalidArgumentError(f"{what}: {text}") from None
    traceback.print_exception(type(e), e, tb)
    return 1


def _in_chain(e: BaseException | None, cls: type) -> BaseException | None:
    """``e``, or the first exception of its ``__cause__`` / ``__context__`` chain, that is a ``cls``."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, cls):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def _user_frames(tb):
    """``tb`` without its leading frames of the doctor, runpy and the import machinery: from the script's first
    frame on (None when the script itself never ran)."""
    import runpy

    ours = {__file__, runpy.__file__}
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name not in ours and not name.startswith("<frozen "):
            break
        tb = tb.tb_next
    return tb
