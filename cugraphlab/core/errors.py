"""Exception hierarchy and the one checker every driver and NVRTC result goes through.

cuda.bindings returns a tuple ``(status, *values)`` from every call instead of raising. ``check`` turns a failed status
into a typed exception that names the status code, the driver's own text, the call that failed and what to do next.
"""
from __future__ import annotations

from typing import Any

__all__ = [
    "CugraphlabError",
    "CudaError",
    "CompileError",
    "LinkError",
    "CaptureError",
    "DeviceMemoryError",
    "NoDeviceError",
    "DriverMismatchError",
    "MissingPackageError",
    "InvalidArgumentError",
    "UnsupportedError",
    "MissingDriverFunctionError",
    "check",
    "check_nvrtc",
    "hint_for",
    "positive_int",
    "EXIT_OK",
    "EXIT_FAILED",
    "EXIT_USAGE",
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
]

#: The exit codes of every command and script, defined here only (the CLI's funnel, ``cli.main``, maps the errors
#: below to them; ``bench.scripts`` uses them for the benchmark scripts).
EXIT_OK = 0
EXIT_FAILED = 1  # the driver failed on good input, or a check failed (a result did not match NumPy, --fail-on)
EXIT_USAGE = 2  # bad input, no GPU, compile error, unsupported, nothing measured: one clear line, like argparse's
EXIT_BROKEN_PIPE = 141  # the reader of stdout left (``cugraphlab show X | head``), as coreutils exit
EXIT_INTERRUPTED = 130  # Ctrl-C


class CugraphlabError(Exception):
    """Base class of every error cugraphlab raises on purpose.

    ``params``: the parameters its message names, by their Python names (``size``, ``repeats``): a Python caller
    reads those; the command line maps each to its flag (``--size``) in one place (``cli.args.cli_text``).
    """

    params: tuple[str, ...] = ()

    def __init__(self, *args, params: tuple[str, ...] = ()):
        super().__init__(*args)
        if params:
            self.params = tuple(params)


class InvalidArgumentError(CugraphlabError, ValueError):
    """A caller passed a value cugraphlab refuses before touching the GPU (size 0, unknown op, ...)."""


def positive_int(name: str, value, maximum: int | None = None, *, minimum: int = 1) -> int:
    """``value`` (an int or a NumPy integer) as an int >= ``minimum`` (1 unless said) and <= ``maximum``, or one
    InvalidArgumentError naming ``name``: the package's one integer validator."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum or (
            maximum is not None and int(value) > maximum):
        limit = "" if maximum is None else f" and <= {maximum:,}"
        raise InvalidArgumentError(f"{name} must be an integer >= {minimum}{limit}, got {value!r}",
                                   params=(name,) if name.isidentifier() else ())
    return int(value)


class NoDeviceError(CugraphlabError):
    """No NVIDIA driver library, or no CUDA device, or the asked-for device index does not exist."""


class DriverMismatchError(NoDeviceError):
    """The driver is older than the CUDA major the installed cuda-bindings speak (cu13 bindings on a 12.x driver).

    A NoDeviceError, so the CLI prints its one line and exits 2; the message names the install that fits.
    """


class MissingPackageError(NoDeviceError):
    """A package cugraphlab talks to the GPU and NVRTC through (cuda-bindings) is not installed: the message names
    what to install. A NoDeviceError (nothing can reach a GPU without it), but the CLI does not call it "no usable
    GPU": the GPU may well be there."""


class UnsupportedError(CugraphlabError):
    """The device, driver or bindings lack a feature (e.g. programmatic dependent launch before Hopper)."""


class MissingDriverFunctionError(UnsupportedError):
    """The installed cuda-bindings know a driver function that this NVIDIA driver does not export (bindings newer
    than the driver: e.g. cuGraphNodeGetParams, in cuda-bindings 13.3 but not in a CUDA 13.0 driver). One line in
    the CLI (exit 2), like every UnsupportedError. ``function``: the driver function's name."""

    def __init__(self, function: str, message: str):
        self.function = function
        super().__init__(message)


class CudaError(CugraphlabError):
    """A CUDA driver call returned something other than CUDA_SUCCESS.

    Attributes: ``code`` (int), ``name`` (e.g. ``CUDA_ERROR_OUT_OF_MEMORY``), ``call`` (the driver function),
    ``description`` (the driver's own text) and ``hint`` (what to do).
    """

    def __init__(self, code: int, name: str, description: str, call: str, hint: str):
        self.code, self.name, self.description, self.call, self.hint = code, name, description, call, hint
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{name} ({code}): {description}. {hint}",
                         params=("size",) if name == "CUDA_ERROR_OUT_OF_MEMORY" else ())


class DeviceMemoryError(CudaError, InvalidArgumentError):
    """A request for more device memory than the GPU has free: bad input for this machine (exit 2 in the CLI),
    with the bytes asked and free in its message."""


class CaptureError(CudaError):
    """Stream capture failed or was invalidated by an operation not allowed while capturing."""

    diagnosis: Any  # where the capture doctor watched (graphs.capture): its Diagnosis, attached to the error


class CompileError(CugraphlabError):
    """NVRTC refused a source. Carries the NVRTC log and the numbered source lines around the first error."""

    def __init__(self, name: str, log: str, source: str, options: tuple[str, ...] = (), status: str = ""):
        self.name, self.log, self.source, self.options, self.status = name, log, source, tuple(options), status
        super().__init__(self._render())

    def numbered_source(self, context: int = 3) -> str:
        """Source lines around the first ``name(LINE): error`` in the log, numbered; the whole source if none."""
        import re

        lines = self.source.splitlines()
        m = re.search(r"\((\d+)\): (?:catastrophic )?error", self.log)
        if m:
            line = int(m.group(1))
            lo, hi = max(1, line - context), min(len(lines), line + context)
        else:
            line, lo, hi = 0, 1, len(lines)
        width = len(str(hi))
        out = []
        for i in range(lo, hi + 1):
            mark = ">" if i == line else " "
            out.append(f"{mark}{i:>{width}} | {lines[i - 1] if i - 1 < len(lines) else ''}")
        return "\n".join(out)

    def _render(self) -> str:
        head = f"NVRTC could not compile {self.name}"
        if self.status:
            head += f" ({self.status})"
        opts = " ".join(self.options)
        return (
            f"{head} with options [{opts}]\n--- NVRTC log ---\n{self.log.strip()}\n"
            f"--- source ---\n{self.numbered_source()}\nFix the source or the options named above."
        )


class LinkError(CompileError):
    """nvJitLink refused a link step (a kind of build failure, like CompileError). Names the call, the
    nvJitLinkResult (e.g. ``ERROR_PTX_COMPILE``) and carries the link's error log (``log``) and the inputs."""

    def __init__(self, call: str, result: str, log: str = "", inputs: tuple[str, ...] = (), options=()):
        self.call, self.result, self.log, self.inputs, self.options = call, result, log, tuple(inputs), tuple(options)
        self.name, self.source, self.status = call, "", result
        text = f"nvJitLink {call}: {result}"
        if self.options:
            text += f" with options [{' '.join(self.options)}]"
        if self.inputs:
            text += f"; inputs: {', '.join(self.inputs)}"
        log = self.log.strip()
        CugraphlabError.__init__(self, text + (f"\n--- link log ---\n{log}" if log else "") +
                         "\nCheck that NVRTC, nvJitLink and libcudadevrt.a come from one CUDA major (cugraphlab info).")


# What to do for the results a user of this package can actually meet. Anything else gets the generic line.
_HINTS = {
    "CUDA_ERROR_NO_DEVICE": "No CUDA device is visible: check `nvidia-smi` and CUDA_VISIBLE_DEVICES.",
    "CUDA_ERROR_INVALID_DEVICE": "That device index does not exist: `cugraphlab info` lists the devices.",
    "CUDA_ERROR_NOT_INITIALIZED": "cuInit was not called: open a device with cugraphlab.Device(...) first.",
    "CUDA_ERROR_DEINITIALIZED": "The driver is shutting down (interpreter exit); nothing more can run.",
    "CUDA_ERROR_OUT_OF_MEMORY": "The GPU has no room for this: use a smaller size or free other GPU processes.",
    "CUDA_ERROR_INVALID_CONTEXT": "No current context on this thread: use objects made by the Device that owns them.",
    "CUDA_ERROR_CONTEXT_IS_DESTROYED": "The object outlived its Device: keep the Device open while you use it.",
    "CUDA_ERROR_INVALID_HANDLE": "A handle was used after close(): do not use closed objects.",
    "CUDA_ERROR_INVALID_VALUE": "An argument was out of range (launch dims, sizes, flags): check the call's values.",
    "CUDA_ERROR_INVALID_IMAGE": (
        "The module image is not valid for this device: clear the cache (CUGRAPHLAB_CACHE_DIR)."
    ),
    "CUDA_ERROR_NO_BINARY_FOR_GPU": "The cubin was built for another arch: compile for this device (drop --arch).",
    "CUDA_ERROR_INVALID_PTX": "The driver could not JIT the PTX: it may be newer than the driver supports.",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": (
        "NVRTC is newer than the driver: update the NVIDIA driver or use an NVRTC no newer than the driver's CUDA."
    ),
    "CUDA_ERROR_NOT_FOUND": "The named kernel or symbol is not in the module: check the kernel name (extern \"C\").",
    "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": "Too many threads or registers per block: use a smaller block size.",
    "CUDA_ERROR_ILLEGAL_ADDRESS": (
        "A kernel touched memory it does not own; the context is now unusable: restart the process "
        "and run under compute-sanitizer."
    ),
    "CUDA_ERROR_LAUNCH_FAILED": "A kernel crashed; the context is now unusable: restart the process.",
    "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED": (
        "Something not capturable ran during capture (a sync, a legacy-stream call): keep the capture body to "
        "launches on the capturing stream."
    ),
    "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED": "This operation cannot run while a stream is capturing: do it before.",
    "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED": "End the capture on the stream that began it.",
    "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD": "End the capture on the thread that began it.",
    "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE": "The graph's topology changed: instantiate it again instead of updating.",
    "CUDA_ERROR_NOT_SUPPORTED": "This device or driver does not support the feature.",
    "CUDA_ERROR_NOT_PERMITTED": "The driver refused the operation in this state.",
}
_GENERIC_HINT = "See this code in the CUDA driver API documentation."


def hint_for(name: str) -> str:
    """What to do about a CUresult, by its name."""
    return _HINTS.get(name, _GENERIC_HINT)


def _describe(status) -> tuple[str, str]:
    """(name, description) of a CUresult, asking the driver for its text when it can."""
    name = getattr(status, "name", None) or f"CUresult {int(status)}"
    try:
        from cuda.bindings import driver

        err, text = driver.cuGetErrorString(status)
        desc = text.decode() if err == 0 and text else name
    except Exception:  # the driver may be gone (interpreter exit) or absent
        desc = name
    return name, desc


def check(result, call: str = ""):
    """Unpack a cuda.bindings driver result: raise on failure, return None, the value, or a tuple of values."""
    status = result[0]
    if status != 0:
        name, desc = _describe(status)
        cls = CaptureError if "CAPTURE" in name else CudaError
        if name in ("CUDA_ERROR_NO_DEVICE",):
            raise NoDeviceError(f"{call}: {name}: {desc}. {hint_for(name)}")
        raise cls(int(status), name, desc, call, hint_for(name))
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return tuple(result[1:])


def check_nvrtc(result, call: str = ""):
    """Like ``check`` for nvrtcResult; failures outside compilation itself raise CompileError with no log."""
    status = result[0]
    if status != 0:
        name = getattr(status, "name", f"nvrtcResult {int(status)}")
        raise CompileError(call or "nvrtc", log=f"{call} returned {name}", source="", status=name)
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return tuple(result[1:])
