"""Result records: ``record`` (the one record shape, the clock descriptions), ``kinds`` (the kind registry,
``load_record``), ``names`` (how a kind is named, and the old names read), ``environment`` (what a measurement ran
on), ``html``. In 0.1.0 this was one module; its names say where they went."""


def __getattr__(name: str):
    from ..._lazy import missing

    raise missing(__name__, name)
