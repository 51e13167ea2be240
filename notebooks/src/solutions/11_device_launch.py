# %% [solution 1]
def device_launches(shape, n):
    # self: every iteration but the last tail-launches the graph again; scheduler: each of the n runs that goes
    # on launches the work graph and itself (the run after the n-th work graph stops)
    return n - 1 if shape == "self" else 2 * n

# %% [solution 2 gpu devlaunch] a device graph holding only the again node, limit 37
g1 = Graph(dev)
add_kernel_node(g1, again.prepare(("ptr", "u64", "ptr"), (count, 37, status), (1, 32), chain.stream))
e1 = GraphExec(dev, cu("cuGraphInstantiate", g1.handle, flag))
cu("cuGraphUpload", e1.handle, s)
alone = run_loop(e1)
print(f"count {alone[0]}, first device error {alone[1]}")
e1.close(); g1.close()
