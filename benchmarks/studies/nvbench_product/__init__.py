"""The nvbench study redone on the product: cugraphlab's side is ``cgl.measure`` and ``cugraphlab measure`` (issue 31
section 2); the workloads both sides time are ``workloads``."""
