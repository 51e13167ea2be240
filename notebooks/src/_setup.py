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
    DRIVER = cgl.core.driver_version()
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
    """Show a figure inline as a PNG and close it. Drawn to PNG bytes here, so that it shows whatever backend is
    active (report.plots switches matplotlib to Agg, where a Figure would show only as its text)."""
    import io
    import matplotlib.pyplot as plt
    from IPython.display import Image, display
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    display(Image(buf.getvalue()))


#: The committed H200 runs the [record] cells draw from, newest first: a record is read from the first that has it.
RECORDS = ("benchmarks/results/2026-12-01_H200_round4", "benchmarks/results/2026-12-01_H200_round3")
COLAB_REPO = @COLAB_REPO@  # GitHub OWNER/REPO (python3 notebooks/build.py --colab sets it): where Colab reads them


def h200_record(name, *part, rebuild=True):
    """The committed H200 record <RECORDS folder>/2026-12-01_H200_<name>.json (the newest folder that has it)
    rebuilt as its result object (cugraphlab.bench.records.kinds), so the report functions draw it without a GPU;
    ``part``: the keys leading to the record inside a benchmark file that holds several. From this checkout, else
    (on Colab) from GitHub; None, with one line saying why, where neither has it."""
    import json, pathlib, urllib.request
    from cugraphlab.bench.records.kinds import record_from_dict
    from cugraphlab.report.env import versions_line
    files = [f"{folder}/2026-12-01_H200_{name}.json" for folder in RECORDS]
    here = pathlib.Path.cwd()
    roots = (here, *list(here.parents)[:2])
    local = next((p / f for f in files for p in roots if (p / f).is_file()), None)
    file = files[0]
    try:
        if local is not None:
            file = next(f for f in files if str(local).endswith(f))
            text, where = local.read_text(), file
        elif COLAB_REPO:
            text = where = None
            for file in files:
                try:
                    where = f"https://raw.githubusercontent.com/{COLAB_REPO}/main/{file}"
                    text = urllib.request.urlopen(where, timeout=30).read().decode()
                    break
                except OSError:
                    continue
            if text is None:
                raise OSError(f"none of {', '.join(files)} on GitHub")
        else:
            print(f"H200 record: {file} is not here (open the notebook in a checkout of the repository)")
            return None
        d = json.loads(text)
        for key in part:
            d = d[key]
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"H200 record: {file} could not be read ({type(e).__name__}: {e})")
        return None
    if not rebuild:  # a study's record: its class lives outside the package (benchmarks/studies/)
        print(f"H200 record: {where}\n{versions_line(d.get('env', {}))}\n")
        return d
    record = record_from_dict(d, file)
    print(f"H200 record: {where}\n{versions_line(record.env)}\n")
    return record


def show_plot(plot, record, *args):
    """Draw ``record`` with a report function that writes STEM.png and STEM.svg (``plot(record, stem, *args)``,
    e.g. report.scaling.plot_scaling) into a scratch folder, and show the PNG."""
    import tempfile
    from IPython.display import Image, display
    with tempfile.TemporaryDirectory() as tmp:
        paths = plot(record, f"{tmp}/figure", *args)
        display(Image(filename=str(next(p for p in paths if str(p).endswith(".png")))))
