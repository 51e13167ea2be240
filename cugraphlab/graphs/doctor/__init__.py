"""The capture doctor: which call broke a stream capture, from which line of Python, what kind of mistake, the fix.

"operation not permitted when stream is capturing" names no culprit, and the capture error often surfaces far from
the call that caused it (at cuStreamEndCapture, or at the next launch). The doctor watches a capture through the
package's one door to the driver (``core._calls``): an observer runs after every driver call made through it, and
after each one the doctor asks the driver about every stream it knows in the capture::

    cuStreamBeginCapture(origin, mode)             # capture(stream, explain=True).__enter__
      ... each driver call made through cugraphlab, then:
      cuStreamIsCapturing(s) for s in the capture  # ACTIVE, or INVALIDATED: which call flipped it?
      cuStreamGetCaptureInfo(s) after an event wait # (status, capture id, graph, dependencies): s joined the capture
    cuStreamGetCaptureInfo(s) for each forked s    # before the end: its open dependency set must reach the origin's
    cuStreamEndCapture(origin)

The culprit is the FIRST call that failed with a capture error (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, _IMPLICIT,
_ISOLATION, _MERGE, _UNJOINED, _WRONG_THREAD, CUDA_ERROR_CAPTURED_EVENT, CUDA_ERROR_NOT_PERMITTED) or after which a
stream went from ACTIVE to INVALIDATED. A call the door cannot see (CuPy, PyTorch, a raw cuda.bindings call, a
Launch prepared before the capture began) shows up as a state change between two calls the doctor saw, or at the
end: the doctor then names both Python frames and says that a call between them did it. A fork never joined is
named with its stream and the node it left dangling (cuStreamEndCapture would say only UNJOINED).

Capture modes (CUstreamCaptureMode) decide who is refused "potentially unsafe" calls (allocation, synchronous
copies, event and stream queries): GLOBAL refuses them in every thread while any global capture runs, THREAD_LOCAL
only in the capturing thread, RELAXED nowhere. Calls that necessarily conflict with a capture (synchronizing the
capturing stream, an implicit legacy-stream dependency, merging two captures) are refused in every mode. Stacks
choose different defaults: PyTorch ``torch.cuda.graph(..., capture_error_mode='global')`` (docs.pytorch.org,
torch.cuda.graph), CuPy ``Stream.begin_capture(mode=None)``: "Default is streamCaptureModeRelaxed"
(cupy/cuda/stream.pyx), cuda.core ``GraphBuilder.begin_building(mode="relaxed")`` (cuda_core/.../_graph.py), and
cugraphlab ``capture(stream, mode="thread_local")``. CUDA Driver API, "Stream Management"; CUDA Programming Guide,
"Prohibited and Unhandled Operations" in "CUDA Graphs".

The package, one idea a module: ``findings`` (the classes of mistake, a finding, a diagnosis), ``calls`` (a driver
call's class and its caller's frame), ``core`` (``Doctor``, the watcher of one cugraphlab capture), ``process`` (the
whole-process switch: ``explain_all``, ``run_explained``), ``cupti`` (the CUPTI mode: every driver and runtime call of
the process), ``stacks`` (the captures PyTorch, CuPy and cuda.core make, explained from their exceptions),
``frames`` (which frames are the user's), ``patches`` and ``watch`` (the stack watch of a run), ``forks`` (a fork
never joined), ``launches`` (the replay watch of cugraphlab's own graphs: launches on two streams, races with
copies, refused updates), ``order`` (how streams are ordered, as the host knows it), ``sites`` (per capture site:
is the graph reused, and does it pay off?).
"""
from __future__ import annotations

from .calls import CallSite, classify, stream_of, treat_as_user_code
from .core import Doctor
from .findings import CAPTURE_ERRORS, MISTAKES, Diagnosis, Finding, Mistake
from .process import explain_all, explaining, explaining_with_cupti, run_explained

__all__ = ["CAPTURE_ERRORS", "MISTAKES", "Mistake", "CallSite", "Finding", "Diagnosis", "Doctor", "explaining",
           "explaining_with_cupti", "explain_all", "treat_as_user_code", "classify", "stream_of", "run_explained"]
