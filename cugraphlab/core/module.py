"""Loaded modules, kernels, and the package's kernel set compiled for one device."""
from __future__ import annotations

import time

from ._calls import cu, driver_module
from .cache import Cache
from .program import Compiled, compile_source, resolve_arch
from .errors import InvalidArgumentError
from ._resource import Resource
from .sources import kernel_names, read_headers, read_source

__all__ = ["Module", "Kernel", "KernelSet"]


class Kernel:
    """A kernel function in a loaded module (the module stays alive while the kernel does)."""

    def __init__(self, module: "Module", name: str, handle):
        self.module, self.name, self.handle = module, name, handle

    def attribute(self, name: str) -> int:
        """A CU_FUNC_ATTRIBUTE_* value by short name, e.g. ``attribute("NUM_REGS")``."""
        attr = getattr(driver_module().CUfunction_attribute, "CU_FUNC_ATTRIBUTE_" + name)
        return cu("cuFuncGetAttribute", attr, self.handle)

    def prepare(self, signature, args, config, stream):
        """A ready-to-fire launch of this kernel with its arguments packed once (see launch.Launch).

        ``config`` is a LaunchConfig (or a (grid, block) pair); ``stream`` the Stream it goes to.
        """
        from .launch import Launch, LaunchConfig, PackedArgs

        if not isinstance(config, LaunchConfig):
            config = LaunchConfig(*config)
        return Launch(self, PackedArgs(signature, args), config, stream)

    def __repr__(self) -> str:
        return f"<Kernel {self.name}>"


class Module(Resource):
    """A cubin or PTX image loaded into the device's context (cuModuleLoadData)."""

    def __init__(self, device, image: bytes):
        self.device = device
        device.require_open()
        self.handle = cu("cuModuleLoadData", image)
        handle = self.handle
        self._own(lambda: cu("cuModuleUnload", handle))

    def kernel(self, name: str) -> Kernel:
        """The ``extern "C"`` kernel called ``name``."""
        self.require_open()
        return Kernel(self, name, cu("cuModuleGetFunction", self.handle, name.encode()))


class KernelSet(Resource):
    """Every kernel source of the package, compiled for a device (or found in the cache) and loaded.

    ``kernels["add"]`` is a Kernel. ``compiled`` keeps the per-source compile records (sizes, registers, cache
    hits) and ``load_seconds`` the wall time of the whole load.
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
        """Compile/load ``names`` (default: every .cu) plus ``extra_sources`` (name -> source text)."""
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
