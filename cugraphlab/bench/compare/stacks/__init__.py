"""One module per Python stack, named exactly as its ``--stacks`` key (``registry.STACKS``); each is imported only
inside its own worker process, so importing this package imports no stack library. Modules whose names start with
``_`` hold a stack's kernels, not a stack."""
