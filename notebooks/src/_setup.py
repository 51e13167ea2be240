# %%
# Setup 1/2: install cugraphlab with the extra that fits this machine's driver (skipped when it already imports).
# cu12: a CUDA 12 driver (Colab's T4); cu13: a CUDA 13 driver (r580+). nvidia-smi says which.
import importlib.util, re, shutil, subprocess, sys
if importlib.util.find_spec("cugraphlab") is None:
    extra = "cu12"
    if shutil.which("nvidia-smi"):
        smi = subprocess.run(["nvidia-smi"], capture_output=True, text=True).stdout
        m = re.search(r"CUDA Version:\s*(\d+)", smi)
        extra = "cu13" if m and int(m.group(1)) >= 13 else "cu12"
    print(f"installing cugraphlab[{extra}] ...")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"cugraphlab[{extra}]"], check=True)
print(subprocess.run([sys.executable, "-m", "cugraphlab", "info"], capture_output=True, text=True).stdout)

# %%
# Setup 2/2: open GPU 0 (or say there is none: then every GPU cell prints one line and the notebook still runs).
import time
import numpy as np
import cugraphlab as cgl
import cugraphlab.report  # registers the graph drawer: graph views draw themselves as the last expression
from cugraphlab.core._calls import cu, driver_fn, driver_module  # the one door to the driver: checked, traced
from cugraphlab.core.errors import CaptureError, CudaError, UnsupportedError
from cugraphlab.graphs import Graph, GraphExec, graph_view, render_text

rng = np.random.default_rng()  # fresh random inputs in every run (never zeros)
d = driver_module()  # cuda.bindings.driver: the enums and structs (the calls go through cu)
GPU, dev, DRIVER = False, None, (0, 0)
try:
    dev = cgl.Device(0)  # cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain, cuCtxSetCurrent
    DRIVER = cgl.driver_version()
    GPU = True
    print(f"GPU 0: {dev.describe()}; driver for CUDA {DRIVER[0]}.{DRIVER[1]}")
except Exception as e:
    print(f"no GPU here ({type(e).__name__}): every GPU cell prints one line and skips")


def show_graph(graph, title=""):
    """The drawing of a graph where this cugraphlab can draw one (a graph view with _repr_svg_), else its text
    view. (Drawings without Graphviz come with issue 17 section 2; the text view is always there.)"""
    view = graph_view(graph)
    if hasattr(view, "_repr_svg_"):
        from IPython.display import display
        if title:
            print(title)
        display(view)
    else:
        print(render_text(view, title))


def new_figure(width=6.0, height=2.8):
    """A matplotlib figure and its axes (shown with show_figure, whatever backend is active)."""
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=(width, height))


def show_figure(fig):
    """Show a figure inline and close it (works on the inline backend and on Agg alike)."""
    import matplotlib.pyplot as plt
    from IPython.display import display
    display(fig)
    plt.close(fig)
