"""cugraphlab.bench.paired.harness"""
