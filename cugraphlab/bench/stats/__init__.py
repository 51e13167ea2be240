"""cugraphlab.bench.stats.summary"""
