"""cugraphlab.bench.probes"""
