"""cugraphlab.bench.measure"""
