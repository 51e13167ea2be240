"""Loaded modules, kernels, and the package's kernel set compiled for one device.

Your own kernel, from source to launch (each step one driver or NVRTC call):

    compiled = cgl.compile_source(source, "saxpy")     # NVRTC: cubin for the current device's arch
    module = device.load_module(compiled)              # cuModuleLoadData
    saxpy = module.kernel("saxpy")                     # cuModuleGetFunction (an extern "C" __global__ function)
    launch = saxpy.prepare(("ptr", "ptr", "f32", "u64"), (y, x, 2.0, n), (grid, 256), stream)   # packed once
    launch()                                           # cuLaunchKernel

Driver API: cuModuleLoadData, cuModuleGetFunction, cuModuleUnload, cuFuncGetAttribute (CUDA Driver API, "Module
Management", "Execution Control").
"""
from __future__ import annotations

import re
import time

from ._calls import cu, driver_module
from ._resource import Resource
from .cache import Cache
from .errors import InvalidArgumentError
from .program import Compiled, compile_source, resolve_arch
from .sources import kernel_names, read_headers, read_source

__all__ = ["Module", "Kernel", "KernelSet"]


class Kernel:
    """A kernel function in a loaded module (the module stays alive while the kernel does); made by
    ``Module.kernel`` or found in a KernelSet (``ks["add"]``).

    Parameters
    ----------
    module : Module
        The loaded module the kernel is in.
    name : str
        The kernel's ``extern "C"`` name.
    handle : CUfunction
        What cuModuleGetFunction returned.
    """

    def __init__(self, module: "Module", name: str, handle):
        self.module, self.name, self.handle = module, name, handle

    @property
    def device(self):
        """The Device the kernel's module is loaded on."""
        return self.module.device

    def attribute(self, name: str) -> int:
        """A CU_FUNC_ATTRIBUTE_* value by short name, e.g. ``attribute("NUM_REGS")``.

        Parameters
        ----------
        name : str
            The attribute's name without the ``CU_FUNC_ATTRIBUTE_`` prefix.

        Returns
        -------
        int
            The value the driver reports.

        Raises
        ------
        AttributeError
            No such attribute in the installed cuda-bindings.
        CudaError
            cuFuncGetAttribute failed.

        See Also
        --------
        cuFuncGetAttribute : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html#group__CUDA__EXEC_1g5e92a1b0d8d1b82cb00dcfb2de15961b
        """
        attr = getattr(driver_module().CUfunction_attribute, "CU_FUNC_ATTRIBUTE_" + name)
        return cu("cuFuncGetAttribute", attr, self.handle)

    def prepare(self, signature, args, config, stream=None, *, names=None):
        """A ready-to-fire launch of this kernel with its arguments packed once (a core.launch.Launch).

        Parameters
        ----------
        signature : sequence of str or numpy.dtype
            The argument kinds, one per kernel parameter: "ptr", "u64", "i64", "u32", "i32", "u16", "i16", "u8",
            "i8", "f64", "f32", "f16", "bf16", "struct", or a NumPy structured dtype (the table is in core.args).
        args : sequence
            The values, one per kind: for "ptr" a DeviceArray, a CuPy array, a torch tensor, anything with
            __cuda_array_interface__ or __dlpack__, or an int address (checked to be device memory of this
            kernel's device); numbers for scalars; a NumPy structured scalar for a struct.
        config : LaunchConfig or tuple
            A LaunchConfig, or a (grid, block) / (grid, block, shared_bytes) tuple.
        stream : Stream or object, optional
            A Stream, or a CuPy / PyTorch / cuda.core stream or int handle (wrapped, not owned); None (default)
            for a launch meant for graph nodes: bind it later with ``launch.on(stream)``.
        names : sequence of str, optional
            The parameters' names, for error messages (``saxpy args[1] (x): ...``).

        Returns
        -------
        Launch
            Calling it is one cuLaunchKernel (cuLaunchKernelEx for a programmatic config).

        Raises
        ------
        InvalidArgumentError
            A value its kind refuses (naming the argument), or a bad config.
        """
        from .launch import Launch, LaunchConfig, PackedArgs  # launch imports nothing of this module

        if not isinstance(config, LaunchConfig):
            config = LaunchConfig(*config)
        packed = PackedArgs(signature, args, device=self.module.device, names=names, kernel=self.name)
        return Launch(self, packed, config, stream)

    def __repr__(self) -> str:
        return f"<Kernel {self.name}>"


class Module(Resource):
    """A cubin or PTX image loaded into the device's context (cuModuleLoadData).

    ``image``: the bytes, or a ``Compiled`` (from compile_source), whose arch is checked first: a cubin for another
    GPU is one InvalidArgumentError saying which arch it was compiled for and why, rather than the driver's
    CUDA_ERROR_NO_BINARY_FOR_GPU.

    Parameters
    ----------
    device : Device
        The open Device whose context the module is loaded into.
    image : bytes or Compiled
        A cubin or PTX image.

    Raises
    ------
    InvalidArgumentError
        A ``Compiled`` for another arch than the device's.
    CudaError
        cuModuleLoadData refused the image.

    See Also
    --------
    cuModuleLoadData : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html#group__CUDA__MODULE_1g04ce266ce03720f479eab76136b90c0b
    """

    def __init__(self, device, image):
        self.device = device
        device.require_open()
        self._live_in(device)  # the module keeps the context alive until it is unloaded
        if isinstance(image, Compiled):
            _check_arch(image, device)
            self.compiled, image = image, image.image
        self.handle = cu("cuModuleLoadData", image)
        handle = self.handle
        self._own(lambda: cu("cuModuleUnload", handle))

    def kernel(self, name: str) -> Kernel:
        """The ``extern "C"`` kernel called ``name`` (cuModuleGetFunction).

        Parameters
        ----------
        name : str
            The kernel's unmangled name.

        Returns
        -------
        Kernel
            Keeps the module alive.

        Raises
        ------
        CugraphlabError
            The module is closed.
        CudaError
            CUDA_ERROR_NOT_FOUND: no kernel of that name (C++ names are mangled unless ``extern "C"``).

        See Also
        --------
        cuModuleGetFunction : CUDA Driver API,
            https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__MODULE.html#group__CUDA__MODULE_1ga52be009b0d4045811b30c965e1cb2cf
        """
        self.require_open()
        return Kernel(self, name, cu("cuModuleGetFunction", self.handle, name.encode()))


def _check_arch(compiled: Compiled, device) -> None:
    """A cubin runs on its own arch and on later minor revisions of the same major (sm_80 on sm_86); an
    arch-specific one (sm_90a) only on its own; a family one (sm_100f) on the family: left to the driver."""
    cc = getattr(device, "compute_capability", None)
    m = re.match(r"sm_(\d+?)(\d)([af]?)$", compiled.arch)
    if compiled.kind != "cubin" or cc is None or m is None or m.group(3) == "f":
        return  # PTX is compiled by the driver for the device it is loaded on
    major, minor, specific = int(m.group(1)), int(m.group(2)), m.group(3) == "a"
    if major == cc[0] and (minor == cc[1] or (minor < cc[1] and not specific)):
        return
    want = f"sm_{cc[0]}{cc[1]}"
    why = f" ({compiled.arch_note})" if compiled.arch_note else ""
    raise InvalidArgumentError(f"{compiled.name} was compiled to cubin for {compiled.arch}{why}; this device is "
                               f"{want}: compile with arch={want!r} (or make the Device before compiling)")


class KernelSet(Resource):
    """Every kernel source of the package, compiled for a device (or found in the cache) and loaded.

    ``kernels["add"]`` is a Kernel. ``compiled`` keeps the per-source compile records (sizes, registers, cache
    hits) and ``load_seconds`` the wall time of the whole load. Made by ``KernelSet.load`` (or
    ``Device.load_kernels``).

    Parameters
    ----------
    device : Device
        The Device the modules are loaded on.
    modules : dict
        Source name -> its loaded Module (owned by the set).
    kernels : dict
        Kernel name -> Kernel.
    compiled : dict
        Source name -> its Compiled record.
    load_seconds : float
        Wall time of the load.
    """

    def __init__(self, device, modules: dict[str, Module], kernels: dict[str, Kernel],
                 compiled: dict[str, Compiled], load_seconds: float):
        self.device, self.modules, self.kernels, self.compiled = device, modules, kernels, compiled
        self.load_seconds = load_seconds
        for m in modules.values():
            self.adopt(m)

    @classmethod
    def load(cls, device, *, names=None, cache: Cache | None = None, extra_sources: dict[str, str] | None = None,
             options: tuple[str, ...] = ()) -> "KernelSet":
        """Compile/load ``names`` (default: every .cu) plus ``extra_sources`` (name -> source text).

        Parameters
        ----------
        device : Device
            The Device to compile for (its arch) and load on.
        names : sequence of str, optional
            The kernel files (without ``.cu``) of the package to load; None (default): all of them.
        cache : Cache, optional
            The compile cache (default: ``default_cache()``).
        extra_sources : dict, optional
            Name -> CUDA C++ source text of more programs, each holding an ``extern "C"`` kernel of its name.
        options : tuple of str, optional
            Further NVRTC options for every source.

        Returns
        -------
        KernelSet
            Owned: closing it unloads every module.

        Raises
        ------
        CompileError
            NVRTC refused a source (its log, options and numbered source in the message).
        UnsupportedError
            NVRTC cannot compile for this GPU.
        CudaError
            A module load or kernel lookup failed (every module loaded so far is unloaded first).
        """
        t0 = time.perf_counter()
        arch, kind = resolve_arch(None, device.compute_capability)
        headers = read_headers()
        sources = {n: read_source(n) for n in (names or kernel_names())}
        sources.update(extra_sources or {})
        modules: dict[str, Module] = {}
        try:
            compiled = {}
            kernels = {}
            for name, text in sources.items():
                compiled[name] = c = compile_source(text, name, arch=arch, kind=kind, headers=headers,
                                                    options=options, cache=cache)
                modules[name] = m = Module(device, c.image)
                kernels[name] = k = m.kernel(name)
                if name not in c.registers:  # no ptxas report (PTX, or NVRTC answered from its own cache)
                    c.registers[name] = k.attribute("NUM_REGS")
        except BaseException:
            for m in modules.values():
                m.close()
            raise
        return cls(device, modules, kernels, compiled, time.perf_counter() - t0)

    def __getitem__(self, name: str) -> Kernel:
        try:
            return self.kernels[name]
        except KeyError:
            raise InvalidArgumentError(f"no kernel {name!r}; loaded: {', '.join(self.kernels)}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.kernels
