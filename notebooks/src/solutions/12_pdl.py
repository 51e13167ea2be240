# %% [solution 1]
pdl_ptx = {}
for arch in ("sm_90", "sm_80"):
    compiled = cgl.compile_source(cuda_source("add.cu"), "add", arch=arch, kind="ptx",
                                  headers={"elementwise.cuh": cuda_source("elementwise.cuh")}, options=("-DCGL_PDL",))
    pdl_ptx[arch] = bytes(compiled.image).decode()
print([line.strip() for line in pdl_ptx["sm_90"].splitlines() if "griddepcontrol" in line])

# %% [solution 2 gpu sm90] 100 iterations of the PDL chain through cuLaunchKernelEx, one wait at the end
configs = []
for L in pdl.launches:
    cfg = d.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = L.config.grid
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = L.config.block
    cfg.sharedMemBytes, cfg.hStream = 0, s
    attr = d.CUlaunchAttribute()
    attr.id = d.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    attr.value.programmaticStreamSerializationAllowed = 1
    cfg.attrs, cfg.numAttrs = [attr], 1
    configs.append((cfg, L))
def pdl_many(iterations):
    for _ in range(iterations):
        for cfg, L in configs:
            cu("cuLaunchKernelEx", cfg, L.kernel.handle, L.args.address, 0)
    cu("cuStreamSynchronize", s)
    return pdl.chain.out.to_numpy()
