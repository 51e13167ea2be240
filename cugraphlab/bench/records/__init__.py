"""cugraphlab.bench.records.record"""
