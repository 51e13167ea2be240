"""cugraphlab.bench.scaling.sweep"""
