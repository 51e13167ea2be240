"""cugraphlab.bench.native.loops"""
