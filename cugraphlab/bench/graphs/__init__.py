"""cugraphlab.bench.graphs"""
