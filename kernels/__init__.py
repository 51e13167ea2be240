"""The CUDA sources of cugraphlab, shipped in the wheel as package data (cugraphlab.kernels)."""
