# %%
# Setup 1/2: make `import cugraphlab` work in this runtime, and say how. It never raises; it tries, in order:
# (1) cugraphlab already importable, (2) a checkout of the course at or above this folder, (3) COURSE_SOURCE below,
# (4) a cugraphlab wheel uploaded to this runtime, else it says in one line what to do.
COURSE_SOURCE = @COURSE_SOURCE@  # a pip URL: "git+https://github.com/OWNER/REPO" or "https://.../cugraphlab-....whl"
import glob, importlib, os, re, shutil, subprocess, sys
_TORCH = {}  # torch's CUDA wheels and their versions before the install (Colab): {} where there is no torch


def _cuda_extra():
    """("cu13" | "cu12" | "", why): the extra that fits the driver nvidia-smi reports ("" without a GPU)."""
    if not shutil.which("nvidia-smi"):
        return "", "no nvidia-smi here (no GPU): the default install, and every GPU cell will say it skips"
    try:
        smi = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return "cu12", f"nvidia-smi did not answer ({type(e).__name__}): cu12, the extra for CUDA 12 drivers"
    m = re.search(r"CUDA Version:\s*(\d+)", smi)
    major = int(m.group(1)) if m else 12
    return ("cu13" if major >= 13 else "cu12"), f"nvidia-smi: a driver for CUDA {major}"


def _pip_error(text):
    """What pip said went wrong, in a few lines: its ERROR lines and a failed subprocess's own output (git's
    "fatal: ..." for a git source), without the "See above for output" pointer (there is no above here)."""
    keep, inside = [], False
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)  # pip's colours: a last line of "\x1b[0m" says nothing
    for line in text.splitlines():
        s = line.strip().lstrip("×│╰─> ").strip()
        if "lines of output]" in line:
            inside = True
            continue
        if "[end of output]" in line:
            inside = False
            continue
        if not s or "See above for output" in s or s.startswith(("note:", "hint:", "WARNING")):
            continue
        if inside or s.startswith(("ERROR", "error:", "fatal:")) or "did not run successfully" in s or \
                "No matching distribution" in s or "Could not find a version" in s:
            if s not in keep:
                keep.append(s)
    return keep[-6:] or [line.strip() for line in text.splitlines() if line.strip()][-2:]


def _pip(args, what):
    """True where pip installed ``args``; else False, with pip's error. The resolver's conflict lines (a package
    another one pins, e.g. torch's CUDA wheels) are printed either way: `-q` would hide nothing else of use."""
    print(f"   pip install {what} ...")
    try:
        r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", *args], capture_output=True, text=True,
                           timeout=1200)
    except (OSError, subprocess.SubprocessError) as e:
        print(f"   pip did not run: {type(e).__name__}: {e}")
        return False
    for line in (r.stderr or "").splitlines():
        if "which is incompatible" in line or "but you have" in line:
            print(f"   pip: {line.strip()}")
    if r.returncode:
        print(f"   pip failed (exit {r.returncode}):")
        for line in _pip_error((r.stderr or "") + "\n" + (r.stdout or "")):
            print(f"     {line}")
        return False
    importlib.invalidate_caches()
    return True


def _versions(names):
    """{distribution: version} of those of ``names`` installed here."""
    from importlib import metadata
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return found


def _torch_pins():
    """The CUDA wheels the installed torch requires (nvidia-*), or [] without torch: what the cu12/cu13 extras
    may move (their NVRTC and runtime wheels)."""
    from importlib import metadata
    try:
        reqs = metadata.requires("torch") or []
    except metadata.PackageNotFoundError:
        return []
    return sorted({re.split(r"[ ;=<>!~\[]", r, maxsplit=1)[0] for r in reqs if r.startswith("nvidia-")})


def _torch_after(before):
    """Say what the install did to torch's CUDA wheels (``before``: their versions), and check that torch still
    imports and, with a GPU, runs a kernel (in a fresh process: this one may hold the old libraries)."""
    after = _versions(before)
    moved = [f"{k} {v} -> {after.get(k, 'removed')}" for k, v in before.items() if after.get(k) != v]
    print(f"   torch's CUDA wheels: {'; '.join(moved) if moved else 'untouched (none of its pins moved)'}")
    code = ("import torch; ok = torch.cuda.is_available(); "
            "y = (torch.arange(4.0, device='cuda') * 2).sum().item() if ok else None; "
            "print(torch.__version__, 'ran a kernel: sum =', y if ok else '(no GPU: import only)')")
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        out = (r.stdout.strip() or (r.stderr.strip().splitlines() or ["?"])[-1])
    except (OSError, subprocess.SubprocessError) as e:
        r, out = None, f"{type(e).__name__}: {e}"
    if r is not None and r.returncode == 0:
        print(f"   torch after the install: {out}")
    else:
        print(f"   torch after the install does NOT work: {out}. Notebook 16's torch rows will say so; to restore "
              f"it: pip install {' '.join(f'{k}=={v}' for k, v in before.items() if after.get(k) != v)}")


def _import_cugraphlab():
    """(module, "") when cugraphlab imports, else (None, why); a failed try leaves nothing half-imported behind."""
    try:
        import cugraphlab
        return cugraphlab, ""
    except Exception as e:  # not installed, or installed without its dependencies
        for name in [m for m in sys.modules if m == "cugraphlab" or m.startswith("cugraphlab.")]:
            del sys.modules[name]
        return None, f"{type(e).__name__}: {e}"


def _checkout():
    """The root of a cugraphlab checkout at or above the working folder (the course opened from a clone)."""
    here = os.path.abspath(os.getcwd())
    for _ in range(4):
        if os.path.isfile(os.path.join(here, "pyproject.toml")) and \
                os.path.isfile(os.path.join(here, "cugraphlab", "__init__.py")):
            return here
        here = os.path.dirname(here)
    return None


def _uploaded_wheel():
    found = [w for d in (os.getcwd(), "/content", os.path.expanduser("~"))
             for w in glob.glob(os.path.join(d, "cugraphlab-*.whl"))]
    return max(found, key=os.path.getmtime) if found else None


def setup_cugraphlab():
    mod = _setup()
    if _TORCH:
        _torch_after(_TORCH)
    return mod


def _setup():
    global _TORCH
    extra, why = _cuda_extra()
    named = f"cugraphlab[{extra}]" if extra else "cugraphlab"
    mod, err = _import_cugraphlab()
    if mod is not None:
        print(f"1. cugraphlab {mod.__version__} is importable already ({os.path.dirname(mod.__file__)})")
        return mod
    print(f"1. cugraphlab is not importable yet ({err.splitlines()[0]})")
    _TORCH = _versions(_torch_pins())  # Colab's torch pins its CUDA wheels: what the install moves is said after
    root = _checkout()
    if root is None:
        print(f"2. no checkout of the course at or above {os.getcwd()}")
    else:
        sys.path.insert(0, root)
        mod, err = _import_cugraphlab()
        if mod is not None:
            print(f"2. the checkout at {root}, put first on sys.path")
            return mod
        sys.path.remove(root)
        print(f"2. the checkout at {root} lacks its dependencies ({err.splitlines()[0]}); {why}")
        if _pip(["-e", f"{root}[{extra}]" if extra else root], f"-e the checkout{f' [{extra}]' if extra else ''}"):
            mod, err = _import_cugraphlab()
            if mod is not None:
                print(f"   installed: cugraphlab {mod.__version__} from {root}")
                return mod
    if not COURSE_SOURCE:
        print("3. no COURSE_SOURCE set at the top of this cell")
    else:
        source = COURSE_SOURCE
        if re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", source):  # OWNER/REPO
            source = f"git+https://github.com/{source}"
        print(f"3. COURSE_SOURCE {source} ({why})")
        if _pip([f"{named} @ {source}"], f"{named} @ {source}"):
            mod, err = _import_cugraphlab()
            if mod is not None:
                print(f"   installed: cugraphlab {mod.__version__}")
                return mod
            print(f"   installed, but it does not import: {err.splitlines()[0]}")
    wheel, wheel_failed = _uploaded_wheel(), False
    if wheel is None:
        print("4. no cugraphlab-*.whl uploaded to this runtime (looked in the working folder, /content and ~)")
    else:
        print(f"4. the uploaded wheel {wheel} ({why})")
        if _pip([f"{named} @ file://{os.path.abspath(wheel)}"], f"{named} @ {os.path.basename(wheel)}"):
            mod, err = _import_cugraphlab()
            if mod is not None:
                print(f"   installed: cugraphlab {mod.__version__}")
                return mod
            print(f"   installed, but it does not import: {err.splitlines()[0]}")
        wheel_failed = True
    if wheel_failed:
        print(f"cugraphlab is not installed: the uploaded wheel is here, but pip could not install it with its "
              f"dependencies (above: what pip said). They come from the package index: check this runtime's network "
              f"(pip download numpy), then run this cell again")
        return None
    print("cugraphlab is not installed: upload a wheel (made with `pip wheel --no-deps .` in a checkout) to this "
          "runtime, or set COURSE_SOURCE at the top of this cell (e.g. \"git+https://github.com/OWNER/REPO\"), "
          "then run this cell again")
    return None


if setup_cugraphlab() is not None:
    try:
        info = subprocess.run([sys.executable, "-m", "cugraphlab", "info"], capture_output=True, text=True,
                              timeout=300)
        print(info.stdout.rstrip() or "\n".join(info.stderr.strip().splitlines()[-1:]))
    except (OSError, subprocess.SubprocessError) as e:
        print(f"cugraphlab info did not run: {type(e).__name__}")

# %%
# Setup 2/2: open GPU 0 (or say there is none: then every GPU cell prints one line and the notebook still runs),
# and the helpers the cells below use: drawings, figures, the committed H200 records, exercise checks, extras.
import time
import numpy as np

rng = np.random.default_rng()  # fresh random inputs in every run (never zeros)
GPU, dev, DRIVER, SOLUTIONS = False, None, (0, 0), False
try:
    import cugraphlab as cgl
    import cugraphlab.report  # graph views and records draw themselves as a cell's last expression
    from cugraphlab import CaptureError, CudaError, Graph, GraphExec, UnsupportedError, cu
    from cugraphlab.graphs import graph_view, render_text
    d = cgl.driver_module()  # cuda.bindings.driver: its enums and structs (every call goes through cu: checked)
except Exception as e:  # Setup 1/2 said why
    cgl = None
    print(f"cugraphlab does not import ({type(e).__name__}: {e}); the cells that need it will fail")
else:
    try:
        dev = cgl.Device(0)  # cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain, cuCtxSetCurrent
        version = cu("cuDriverGetVersion")  # 13000 is CUDA 13.0
        DRIVER = (version // 1000, version % 1000 // 10)
        GPU = True
        print(f"GPU 0: {dev.describe()}; driver for CUDA {DRIVER[0]}.{DRIVER[1]}")
    except Exception as e:
        print(f"no GPU here ({type(e).__name__}): every GPU cell prints one line and skips")

def render(result) -> str:
    """The text of a result record (live, or a committed one or its JSON dict) as its command prints it
    (``cugraphlab show``: report.render_record; a kind the package has no class for is shown plainly), or of a
    capture doctor's Diagnosis."""
    result = _unshown(result)
    if type(result).__name__ == "Diagnosis":
        from cugraphlab.report.doctor import render_diagnosis
        return render_diagnosis(result)
    from cugraphlab.report import render_record
    return render_record(result)


def pick(text: str, keep=(), limit: int = 11, within: str | None = None) -> str:
    """The lines of ``text`` containing one of ``keep`` (all lines without it; "re:PATTERN" matches a regular
    expression), each table row with its table's header and rule, at most ``limit`` lines; ``within``: only in the
    block (up to the next empty line) that starts at the first line containing it."""
    import re
    lines = text.splitlines()
    if within is not None:
        first = next((i for i, line in enumerate(lines) if within in line), None)
        if first is None:
            return f"(no line holds {within!r})"
        last = next((i for i in range(first, len(lines)) if not lines[i].strip()), len(lines))
        lines = lines[first:last]
    tests = [(lambda line, p=re.compile(k[3:]): p.search(line) is not None) if k.startswith("re:")
             else (lambda line, k=k: k in line) for k in keep]
    rule = [i for i in range(1, len(lines)) if lines[i].startswith("--") and set(lines[i]) <= {"-", " "}]
    chosen = set()
    for j, line in enumerate(lines):
        if tests and not any(t(line) for t in tests):
            continue
        chosen.add(j)
        head = max((r for r in rule if r < j and all(lines[k].strip() for k in range(r, j))), default=None)
        if head is not None:
            chosen.update((head - 1, head))
    out = [lines[j] for j in sorted(chosen)] or [f"(no line holds any of {keep!r})"]
    if len(out) > limit:
        out = out[:limit - 1] + [f"... ({len(out) - limit + 1} more lines)"]
    return "\n".join(out)


def show(result, *keep, limit: int = 11, within: str | None = None) -> None:
    """Print ``result`` (a record or a Diagnosis) as its command does, only the lines holding one of ``keep``."""
    print(pick(render(result), keep, limit, within))


def h200_record(name, *part):
    """The committed H200 record ``name`` as its JSON object (``part``: the keys leading to the record inside a file
    that holds several), printed first as one line: where it came from and on what. The records the course reads
    travel inside the cugraphlab package (cugraphlab/course_records/, copied from benchmarks/results/ by
    notebooks/pack_records.py, trimmed to what the cells show): no checkout and no network needed. None, with one
    line saying why, where this cugraphlab lacks it."""
    import json
    from importlib.resources import files
    from cugraphlab.report.env import versions_line
    try:
        folder = files("cugraphlab").joinpath("course_records")
        where = json.loads(folder.joinpath("index.json").read_text()).get(name, f"course_records/{name}.json")
        data = json.loads(folder.joinpath(f"{name}.json").read_text())
        for key in part:
            data = data[key]
        env = data.get("env") or {}
    except Exception as e:  # an older cugraphlab without the course's records, or not the record asked for
        version = getattr(cgl, "__version__", "?")
        print(f"H200 record {name}: not in this cugraphlab {version} ({type(e).__name__}: {e}); install the course's "
              f"version (Setup 1/2)")
        return None
    print(f"H200 record: {where} ({' | '.join(versions_line(env).split(' | ')[:3])})")
    return data


class _Shown:
    """A record show_record printed: its attributes and items are the record's (``.record`` is the record itself),
    and as a cell's last expression it displays nothing more (the cell shows the printed lines only)."""

    def __init__(self, record, name):
        self.record, self.name = record, name

    def __getattr__(self, attr):
        if attr.startswith("_"):  # no _repr_html_ or other display hooks of the record
            raise AttributeError(attr)
        return getattr(self.record, attr)

    def __getitem__(self, key):
        return self.record[key]

    def _ipython_display_(self):
        pass

    def __repr__(self):
        return f"<H200 record {self.name} ({type(self.record).__name__}): printed above>"


class _ShownDict(dict):
    """A record show_record printed whose kind this cugraphlab has no class for: the dict, displaying nothing more."""

    def _ipython_display_(self):
        pass

    def __repr__(self):
        return f"<H200 record ({len(self)} keys): printed above>"


def _unshown(result):
    return result.record if isinstance(result, _Shown) else dict(result) if isinstance(result, _ShownDict) else result


def show_record(name, *keep, part=(), limit: int = 11, within: str | None = None):
    """Print the committed H200 record ``name`` as its command printed it (``render``): the lines holding one of
    ``keep`` (with their tables' headers), at most ``limit``. Returns the record (its Record object where this
    cugraphlab has its kind, else its JSON dict), which displays nothing as a cell's last expression; None, with one
    line, where unreadable."""
    data = h200_record(name, *part)
    if data is None:
        return None
    try:
        text = render(data)
    except Exception as e:  # a record this version cannot show
        print(f"(not shown: {type(e).__name__}: {e})")
        return _ShownDict(data)
    print(pick(text, keep, limit, within))
    try:
        from cugraphlab.bench import record_from_dict
        return _Shown(record_from_dict(data, name), name)
    except Exception:  # a kind the package has no class for: the dict
        return _ShownDict(data)


def show_graph(graph, title=""):
    """The drawing of a graph where this cugraphlab can draw one (a graph view with _repr_svg_), else its text view."""
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
    """Show a figure inline as a PNG and close it (drawn to PNG bytes, so it shows whatever backend is active)."""
    import io
    import matplotlib.pyplot as plt
    from IPython.display import Image, display
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    display(Image(buf.getvalue()))


def show_plot(plot, record, *args):
    """Draw ``record`` with a report function that writes STEM.png and STEM.svg (``plot(record, stem, *args)``,
    e.g. report.scaling.plot_scaling) into a scratch folder, and show the PNG."""
    import tempfile
    from IPython.display import Image, display
    with tempfile.TemporaryDirectory() as tmp:
        paths = plot(_unshown(record), f"{tmp}/figure", *args)
        display(Image(filename=str(next(p for p in paths if str(p).endswith(".png")))))


def cuda_source(file, kernel=None):
    """The text of a CUDA source the package ships (kernels/FILE, e.g. "conditional.cu"), or of one kernel of it
    (from `extern "C" __global__ void KERNEL(` to its closing brace)."""
    from importlib.resources import files
    text = files("cugraphlab.kernels").joinpath(file).read_text()
    if kernel is None:
        return text
    signature = text.index(f'extern "C" __global__ void {kernel}(')
    start = text.rfind("\n\n", 0, signature) + 1  # with the comment above it
    depth, i = 0, text.index("{", signature)
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[start:j + 1].strip("\n")
    return text[start:]


def grade(n, answer, test) -> None:
    """Check exercise ``n``: ``test(answer)`` returns (ok, what it found). An answer left None says "not answered
    yet" (in a solutions notebook that fails); a wrong one raises AssertionError with what the check found. Returns
    None (a check cell shows its printed line only)."""
    if answer is None:
        if SOLUTIONS:
            raise AssertionError(f"exercise {n}: not answered")
        print(f"exercise {n}: not answered yet (write your answer in the cell above, then run this cell)")
        return
    ok, found = test(answer)
    if not ok:
        raise AssertionError(f"exercise {n}: not right yet: {found}")
    print(f"exercise {n}: passed ({found})")


_EXTRAS = {}


def _need_extra(name, importable, install):
    """Install the pip requirements ``install`` once when ``importable()`` is False; "" once it is True, else why."""
    if name not in _EXTRAS:
        why = importable()
        if why:
            print(f"{name}: {why}; installing {' '.join(install)} ...")
            import subprocess, sys
            r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", *install], capture_output=True,
                               text=True)
            if r.returncode:
                said = "; ".join(_pip_error((r.stderr or "") + "\n" + (r.stdout or ""))[-2:])
                why = f"{why}, and pip could not install it ({said or f'exit {r.returncode}'})"
            else:
                import importlib
                importlib.invalidate_caches()
                why = importable()
        _EXTRAS[name] = why
    return _EXTRAS[name]


def devlaunch_missing():
    """"" where device graph launch can run here (installing the devlaunch extra's wheels first if they are missing),
    else why not: the package's own check (driver, unified addressing, nvJitLink, libcudadevrt.a)."""
    def why():
        try:
            from cugraphlab.graphs import require_device_launch
            require_device_launch(dev)
            return ""
        except Exception as e:
            return str(e).splitlines()[0]
    cu12 = d.CUDA_VERSION < 13000  # the bindings' CUDA major picks the wheels (pyproject's devlaunch extras)
    wheels = ["cuda-toolkit[nvjitlink,cudart]>=12.9,<13"] if cu12 else ["cuda-toolkit[nvjitlink,cudart,crt]>=13,<14"]
    return _need_extra("devlaunch", why, wheels)


def cupti_missing():
    """"" where the capture doctor's CUPTI mode can run here (installing cupti-python first if it is missing), else
    why not."""
    def why():
        from cugraphlab.graphs import cupti_available
        return "" if cupti_available() else "cupti-python or libcupti is not usable"
    major = 12 if d.CUDA_VERSION < 13000 else 13
    return _need_extra("cupti", why, [f"cupti-python=={major}.*", "pyelftools"])
