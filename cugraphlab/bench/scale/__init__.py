"""The scale wing: launch rate from many threads, GPUs and processes, and the GIL / driver-lock verdict.

``plan`` (options checked, the points to measure), ``worker`` (what runs in each worker process: threads launching
through the experiment's Runner), ``gil`` (does a launch release the GIL?), ``rates`` (rates, spreads and speedups
from the workers' clocks), ``run`` (the orchestration and the record).
"""
from .gil import gil_probe_main, gil_verdict
from .plan import Point, ScaleConfig, make_config, plan_points, resolve_devices
from .run import point_rows, run_scale

__all__ = ["gil_probe_main", "gil_verdict", "Point", "ScaleConfig", "make_config", "plan_points", "resolve_devices",
           "point_rows", "run_scale"]
