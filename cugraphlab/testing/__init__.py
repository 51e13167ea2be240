"""cugraphlab in your own test suite: a pytest plugin (entry point ``pytest11``: ``cugraphlab``) with the fixture
``cgl_measure`` and the options ``--cgl-save DIR``, ``--cgl-compare DIR``, ``--cgl-fail-on slower``.

``plugin`` holds the hooks and the options, ``fixture`` what a test calls, ``store`` where records go and how two
are compared (``bench.diff.diff_records``, with the process as the unit). Importing this package loads nothing
else: pytest imports the plugin in every session where cugraphlab is installed.
"""
