"""Options every command family shares, declared once, and the checks made before anything is measured.

Sizes and counts are parsed one way everywhere: ``1048576``, ``1_048_576`` and ``2^20`` are accepted; ``1,024`` is
refused as ambiguous (a list or a thousands separator?), in a size and in a list of sizes; a list of counts
(``--lengths 4,128,256``, ``--widths``) takes every comma as a separator. Output paths (``--json``, ``--csv``,
``--plot``, ``--out``, ``--dot``, ``--draw``) are checked to be writable before any GPU work (``check_output_paths``), so a
typo costs one line, not a whole measurement; matplotlib is looked for once, where a command will draw
(``check_plotting``), both by ``cli.main`` before the handler runs. A threshold (``5%``, ``0.05``) is
``bench.diff.parse_threshold``'s (``threshold_arg``), --fail-on and --judge take ``bench.diff``'s choices, and every
command names the files it wrote in one line, ``WHAT written to F`` (``announce``).
"""
from __future__ import annotations

import argparse
import math
import os
import re

from ..core.errors import InvalidArgumentError

__all__ = ["count_arg", "size_arg", "size_list_arg", "count_list_arg", "device_index_arg",
           "iters_arg", "seed_arg", "seconds_arg", "threshold_arg", "seconds_or_zero_arg", "finite_arg", "name_list_arg", "MAX_ITERS",
           "add_size", "add_iters", "add_repeats", "add_ops", "add_device", "add_seed", "add_json", "add_csv",
           "add_plot", "add_scalar", "add_threshold", "add_fail_on", "add_judge", "check_output_paths", "check_plotting",
           "announce", "save_json", "written", "record_to_stdout",
           "single_value_options", "join_negative_values", "MAX_COUNT", "nothing_measured", "OUTPUT_FILE_OPTIONS",
           "OUTPUT_STEM_OPTIONS", "DEFAULT_OPS_TEXT"]

DEFAULT_OPS_TEXT = "add,mul,sub,relu"
#: Options holding a file path, and options holding a stem (suffixes are appended), that commands write to.
OUTPUT_FILE_OPTIONS = ("json", "csv", "dot")
OUTPUT_STEM_OPTIONS = ("plot", "out", "draw")


#: The largest count or size any option takes: 2^40 (a trillion float32 elements is 4 TiB, beyond any GPU's memory).
MAX_COUNT = 1 << 40
_WHOLE_HELP = "a whole number (like 1024, 1_048_576 or 2^20)"


def _whole(text: str) -> int:
    """``text`` as a whole number, written ``1024``, ``1_024``, ``2^10`` or with a sign; ``1,024`` refused as ambiguous."""
    t = text.strip()
    if re.fullmatch(r"2\^\d{1,4}", t):
        return 1 << int(t[2:])
    if "," in t:
        raise argparse.ArgumentTypeError(f"{text!r} is ambiguous (a list or a thousands separator?): write 1024, "
                                         f"1_024 or 2^10")
    if not re.fullmatch(r"[+-]?\d{1,60}(_\d+)*", t) or len(t) > 80:
        raise argparse.ArgumentTypeError(f"expected {_WHOLE_HELP}, got {text!r}")
    return int(t.replace("_", ""))


def _in_range(text: str, lo: int, hi: int, range_text: str) -> int:
    v = _whole(text)
    if not lo <= v <= hi:
        raise argparse.ArgumentTypeError(f"must be {range_text}, got {text.strip()!r}")
    return v


def count_arg(text: str) -> int:
    """A count from 1 to 2^40: ``1000``, ``1_000`` or ``2^10``; every count out of range (0, -1, 2^41,
    10000000000000) gets the same words."""
    return _in_range(text, 1, MAX_COUNT, "a whole number from 1 to 2^40")


size_arg = count_arg  # float32 elements: the same rules


def size_list_arg(text: str) -> list[int]:
    """A comma list of counts (``1048576,1024`` or ``2^20,2^10``); ``1,024`` alone is refused as ambiguous."""
    if re.fullmatch(r"\s*\d{1,3}(,\d{3})+\s*", text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is ambiguous here (a list or thousands separators?): write sizes as 1048576,1024 or "
            f"1_048_576, or repeat the option")
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"expected sizes separated by commas, got {text!r}")
    return [count_arg(p) for p in parts]


def count_list_arg(text: str) -> list[int]:
    """A comma list of counts (kernels per chain, graph lengths, branch widths): every comma separates, so
    ``4,128,256`` is three counts. Each item follows ``count_arg`` (``2^K`` and ``1_000`` accepted). Sizes keep
    ``size_list_arg``, where ``1,024`` is ambiguous: a count list has small items and no thousands to write."""
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"expected counts separated by commas, got {text!r}")
    return [count_arg(p) for p in parts]


#: The most iterations one timed loop may take (``--iters``): a million eager iterations of the chain take about 20 s
#: per loop on an H200, times repeats and modes; more is a typo (``5000000000``), not a measurement.
MAX_ITERS = 1_000_000


def iters_arg(text: str) -> int:
    """Iterations (or launches) per timed loop: a count, 1 to ``MAX_ITERS``."""
    v = count_arg(text)
    if v > MAX_ITERS:
        raise argparse.ArgumentTypeError(f"at most {MAX_ITERS:,} per timed loop, got {v:,} (repeat the command or "
                                         f"raise --repeats for more samples)")
    return v


def seed_arg(text: str) -> int:
    """A seed of the random inputs: a whole number 0 to 2**64 - 1 (``42``, ``2^20``; NumPy's generators refuse
    negative seeds)."""
    try:
        return _in_range(text, 0, (1 << 64) - 1, "0 to 2**64 - 1 (2^K accepted)")
    except argparse.ArgumentTypeError as e:
        if str(e).startswith("expected"):
            raise argparse.ArgumentTypeError(f"expected a whole number >= 0 (like 42 or 2^20), got {text!r}") from None
        raise


def _float_arg(text: str, what: str, ok, must: str) -> float:
    """``text`` as a float that passes ``ok``: else argparse's one-line error, ``expected WHAT`` or ``MUST``."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not (math.isfinite(v) and ok(v)):
        raise argparse.ArgumentTypeError(f"{must}, got {text!r}")
    return v


def seconds_arg(text: str) -> float:
    """A finite number of seconds > 0 (``0.5``, ``2``): refuses 0, negatives, ``inf`` and ``nan``."""
    return _float_arg(text, "seconds", lambda v: v > 0, "must be a finite number of seconds > 0")


def seconds_or_zero_arg(text: str) -> float:
    """Like ``seconds_arg``, and 0 allowed (meaning: skip this part)."""
    return _float_arg(text, "seconds", lambda v: v >= 0, "must be 0 (skip it) or a finite number of seconds > 0")


def threshold_arg(text: str) -> float:
    """The smallest change that counts, as ``5%`` or ``0.05``: ``bench.diff.parse_threshold``, the one parser of
    diff, measure --compare-to and the pytest plugin's --cgl-threshold."""
    from ..bench.diff import parse_threshold

    try:
        return parse_threshold(text)
    except InvalidArgumentError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def finite_arg(text: str) -> float:
    """A finite float (``2.0``, ``-1e3``): refuses ``inf`` and ``nan``."""
    return _float_arg(text, "a number", lambda v: True, "must be a finite number")


def name_list_arg(text: str) -> str:
    """A comma list of names (``--ops add,mul``, ``--stacks torch,cupy``), returned as written after checking that no
    item is empty: ``''``, ``add,,mul`` and ``add,`` are refused rather than read as fewer items (or all of them)."""
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, with none empty, got {text!r}")
    return ",".join(parts)


def device_index_arg(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a device index (0, 1, ...), got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"device index must be >= 0, got {v}")
    return v


def add_size(p, default: int = 1 << 20, what: str = "float32 elements") -> None:
    p.add_argument("--size", type=size_arg, default=default, help=f"{what} (default {default:,}; 2^K accepted)")


def add_iters(p, default: int = 5000, what: str = "iterations per timed loop") -> None:
    p.add_argument("--iters", type=iters_arg, default=default, help=f"{what} (default {default}; at most {MAX_ITERS:,})")


def add_repeats(p, default: int = 5, what: str = "timed loops per mode") -> None:
    p.add_argument("--repeats", type=count_arg, default=default, help=f"{what} (default {default})")


def add_ops(p) -> None:
    p.add_argument("--ops", type=name_list_arg, default=DEFAULT_OPS_TEXT, help=f"comma-separated chain (default {DEFAULT_OPS_TEXT})")


def add_scalar(p) -> None:
    p.add_argument("--scalar", type=finite_arg, default=2.0, help="the factor of mul (default 2.0)")


def add_device(p, default: int | None = 0) -> None:
    p.add_argument("--device", type=device_index_arg, default=default,
                   help="CUDA device index" + (f" (default {default})" if default is not None else ""))


def add_seed(p, default: int | None = None, what: str = "seed of the random inputs, >= 0 (default: drawn anew)") -> None:
    p.add_argument("--seed", type=seed_arg, default=default, help=what)


def add_json(p, what: str = "write the full record (samples, statistics, environment)") -> None:
    p.add_argument("--json", metavar="PATH", help=what)


def add_csv(p, what: str = "write one row per point as CSV") -> None:
    p.add_argument("--csv", metavar="PATH", help=what)


def add_plot(p, what: str = "draw the figure to STEM.png and STEM.svg (needs matplotlib)") -> None:
    p.add_argument("--plot", metavar="STEM", help=what)


#: The verdicts --fail-on can fail on (``bench.diff.FAIL_ON``'s keys: a test holds them equal) and the rows --judge
#: may judge (``bench.diff.check_judge``), for every command that compares records.
FAIL_ON_CHOICES = ("slower", "faster", "any-change")
JUDGE_CHOICES = ("repeatable", "all")


def add_threshold(p, default: str | None, what: str) -> None:
    p.add_argument("--threshold", type=threshold_arg, default=default, help=what)


def add_fail_on(p, what: str) -> None:
    p.add_argument("--fail-on", choices=FAIL_ON_CHOICES, default=None, help=what)


def add_judge(p, default: str | None, what: str) -> None:
    p.add_argument("--judge", choices=JUDGE_CHOICES, default=default, help=what)


def check_output_paths(args: argparse.Namespace) -> None:
    """Every output option given can be written (InvalidArgumentError naming the first that cannot): a file option
    as ``core.files.check_output`` says (an empty path, a folder, a block device ... refused; a symlink followed;
    a character device or FIFO written through), a stem option names files (``core.files.stem_path``: not
    ``plots/``) whose ``.png`` can be written."""
    from ..core.files import check_output, stem_path

    for name in OUTPUT_FILE_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str):
            _checked(name, value, check_output)
    for name in OUTPUT_STEM_OPTIONS:
        if name == "out" and getattr(args, "no_plot", False):
            continue
        value = getattr(args, name, None)
        if isinstance(value, str):
            stem = _checked(name, value, stem_path)
            _checked(name, str(stem.with_name(stem.name + ".png")), check_output)


def check_plotting(args: argparse.Namespace) -> None:
    """Where the command will draw (``--plot``, ``--draw``, or a command with ``--no-plot`` not given), matplotlib
    can be imported: else PlotUnavailableError (one line, exit 2), before any GPU work or file read."""
    asked = [f"--{name}" for name in ("plot", "draw") if getattr(args, name, None)]
    draws_by_default = hasattr(args, "no_plot") and not args.no_plot
    if not (asked or draws_by_default):
        return
    from ..report.plots import PlotUnavailableError, matplotlib_missing

    if matplotlib_missing():
        if asked:
            raise PlotUnavailableError(f"{asked[0]} needs matplotlib: pip install matplotlib (or drop {asked[0]})")
        raise PlotUnavailableError("plotting needs matplotlib: pip install matplotlib (or add --no-plot)")


def _checked(option: str, value: str, check):
    try:
        return check(value)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"--{option} {value!r}: {e}" if not value else f"--{option} {e}") from None


def save_json(path: str | None, record) -> None:
    """Write ``record`` (its ``to_dict()``) to ``path`` when the option was given, and say where."""
    if path:
        from ..core.files import write_json

        write_json(path, record)
        announce("record", path)


def announce(what: str, paths) -> None:
    """The one line every command prints for the files it wrote: ``WHAT written to F`` (``written``'s names)."""
    print(f"{what} written to {written(paths)}")


def written(paths) -> str:
    """The file (or files) a command wrote, as its line names them: each with ``(created the folder F)`` where the
    folder had to be made (``core.files.written_text``)."""
    from ..core.files import written_text

    if isinstance(paths, (str, os.PathLike)):
        return written_text(paths)
    return ", ".join(written_text(p) for p in paths)


def _same_file(path: str, fd: int) -> bool:
    try:
        a, b = os.stat(path), os.fstat(fd)
    except (OSError, ValueError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def record_to_stdout(args: argparse.Namespace) -> bool:
    """Whether an output file option (``--json``, ``--csv``, ``--dot``) names this process's standard output
    (``/dev/stdout``, ``/dev/fd/1``, or the file or pipe stdout is). Then that file alone goes to stdout and
    everything the command prints goes to stderr (``cli.main``), so that
    ``cugraphlab diff a.json b.json --json /dev/stdout | python -m json.tool`` reads nothing but the record."""
    for name in OUTPUT_FILE_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value and (value in ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")
                                                   or _same_file(value, 1)):
            return True
    return False


def single_value_options(parser: argparse.ArgumentParser) -> set[str]:
    """The long options of ``parser`` that take exactly one value (``--threshold``, ``--scalar``, ...); none for a
    parser that passes the rest of the line on (``doctor SCRIPT ARGS...``): those words are the script's."""
    if any(a.nargs == argparse.REMAINDER for a in parser._actions):
        return set()
    return {o for a in parser._actions if a.nargs is None and a.option_strings
            for o in a.option_strings if o.startswith("--")}


def join_negative_values(argv: list[str], options: set[str]) -> list[str]:
    """``--threshold -5%`` as ``--threshold=-5%``: argparse reads a value that starts with '-' and is not a plain
    number (``-5%``, ``-1e3``, ``-2^4``) as an option and says only "expected one argument"; joined, the value
    reaches its option's check, whose one line says what is wrong with it."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in options and i + 1 < len(argv) and re.match(r"-[\d.]", argv[i + 1]):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def nothing_measured(what: str) -> InvalidArgumentError:
    """The error of a command that measured nothing (exit 2): never an empty table that exits 0."""
    return InvalidArgumentError(f"nothing was measured: {what}")


#: A parameter whose flag is not ``--`` + its name with ``-`` for ``_`` (the one table; every other maps by that rule).
FLAG_OF = {"time_cap_s": "--time-cap", "time_budget_s": "--time-budget", "budget_s": "--budget",
           "timeout_s": "--timeout"}


def flag_of(param: str) -> str:
    """The command line's flag for a Python parameter named in an error: ``size`` -> ``--size``."""
    return FLAG_OF.get(param, "--" + param.replace("_", "-"))


def cli_text(error: BaseException) -> str:
    """An error's message as the command line says it: every parameter it names (``error.params``, Python names,
    as a Python caller reads them) becomes its flag. The one place the lower floors' parameter names meet flags."""
    import re

    text = str(error)
    for param in getattr(error, "params", ()) or ():
        text = re.sub(rf"(?<![\w.=-]){re.escape(param)}(?![\w(=-])", flag_of(param), text)
    return text
