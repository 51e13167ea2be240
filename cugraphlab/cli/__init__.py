"""Command line: argparse only. Each command parses, calls a measurement (bench, experiment or core), hands its record
to a renderer (report), prints, and returns an exit code.

One module per command family, each with ``add_commands(subparsers, common)``: run (run, info, compile), measure
(measure, latency, timeline, sweep), graphs (graph, update, conditional), nodes (host, event, child, empty and control nodes),
memnodes (graph memory nodes), switch (IF/ELSE, SWITCH, captured bodies), pdl, compare, scale, diff (two records, row
by row), show (a saved record printed and drawn, no GPU), devlaunch (device graph launch), doctor (which call broke a
capture), scaling (what a graph costs as it grows). ``main`` is the one funnel from errors to exit codes, so no command ends in a traceback:

- 0: measured, and every check passed;
- 1: the driver failed on good input, or a result did not match NumPy;
- 2: bad input (an option, a size this GPU cannot hold, an output path that cannot be written, a record of another
  kind), no usable GPU, a compile error, a feature this GPU or driver lacks, or nothing could be measured: one line.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import sys

from .._version import __version__
from ..core.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    CompileError,
    CudaError,
    CugraphlabError,
    InvalidArgumentError,
    MissingPackageError,
    NoDeviceError,
    UnsupportedError,
)
from .args import (
    check_output_paths,
    check_plotting,
    cli_text,
    join_negative_values,
    record_to_stdout,
    single_value_options,
)

#: The commands that need no GPU, named by the "no usable GPU" line.
GPU_FREE = "compile, diff, show and info"

__all__ = ["main", "build_parser", "no_gpu_text", "FAMILIES", "GPU_FREE", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE"]

# EXIT_OK, EXIT_FAILED, EXIT_USAGE: defined once, in core.errors (bench.scripts exits with them too)

#: The command families, in the order ``cugraphlab --help`` lists their commands.
FAMILIES = ("run", "measure", "graphs", "nodes", "memnodes", "switch", "pdl", "compare", "scale", "diff", "show",
            "devlaunch", "doctor", "scaling")


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in one line like every other bad input: ``cugraphlab X: message`` and exit 2."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):
        """argparse's, except that options no parser knows are refused by the command they were given to
        (``cugraphlab run: unrecognized arguments: --foo``), not by the top parser."""
        args = list(sys.argv[1:] if args is None else args)
        commands = getattr(self, "_commands", {})
        named = next((a for a in args if a in commands), None)
        if named is not None:
            args = join_negative_values(args, single_value_options(commands[named]))
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(self, "_commands", {}).get(getattr(parsed, "command", None), self)
            shown = " ".join(x if x and not any(c.isspace() for c in x) else repr(x) for x in extras)
            command.error(f"unrecognized arguments: {shown}")  # an empty one as '', not a double space
        return parsed


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true",
                        help="print every driver and NVRTC call made (arguments, result, duration) to stderr")
    p = _Parser(prog="cugraphlab",
                description="What a kernel launch costs from Python, and what a CUDA graph saves.")
    p.add_argument("--version", action="version", version=f"cugraphlab {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for family in FAMILIES:
        importlib.import_module(f"{__name__}.{family}").add_commands(sub, common)
    p._commands = sub.choices  # command name -> its parser, for parse_args' unrecognized arguments
    return p


def no_gpu_text(why: str) -> str:
    """Why no GPU is usable, ending with the commands that need none."""
    return why if "without one" in why else f"{why}; {GPU_FREE} run without one"


def _say(command: str, text: str) -> None:
    print(f"cugraphlab {command}: {text}", file=sys.stderr)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush does not fail on the closed pipe again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # argparse: --help, --version (0) or a bad option (2, one line already printed)
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    command = args.command
    tracer = None
    if getattr(args, "trace", False):
        from ..core._calls import tracing

        tracer = tracing(sys.stderr)
    try:
        # --json /dev/stdout: the record alone on stdout, everything the command prints on stderr
        aside = contextlib.redirect_stdout(sys.stderr) if record_to_stdout(args) else contextlib.nullcontext()
        with aside:
            check_output_paths(args)
            check_plotting(args)  # matplotlib, where the command will draw: before any GPU work
            code = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the funnel, not at the interpreter's exit
        return code
    except BrokenPipeError:  # `cugraphlab show X | head`: the reader left; say nothing more to it, as coreutils do
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except MissingPackageError as e:  # cuda-bindings missing: what to install, not "no usable GPU"
        _say(command, str(e))
        return EXIT_USAGE
    except NoDeviceError as e:
        _say(command, f"no usable GPU: {no_gpu_text(str(e))}")
        return EXIT_USAGE
    except (CompileError, InvalidArgumentError, UnsupportedError) as e:
        _say(command, cli_text(e))
        return EXIT_USAGE
    except CudaError as e:
        _say(command, f"CUDA driver error: {cli_text(e)}")
        return EXIT_FAILED
    except CugraphlabError as e:
        _say(command, cli_text(e))
        return EXIT_FAILED
    except OSError as e:  # writing a result file failed after all (disk full, removed folder, ...)
        where = f" {e.filename}" if getattr(e, "filename", None) else ""
        _say(command, f"could not write{where}: {e.strerror or e}")
        return EXIT_USAGE
    except RuntimeError as e:  # cuda.pathfinder's DynamicLibNotFoundError (libnvrtc, libcuda ...): what to install
        if not type(e).__name__.endswith("NotFoundError"):
            raise
        first = str(e).splitlines()[0] if str(e) else "a library"
        _say(command, f"a CUDA library was not found ({first[:160]}): reinstall cugraphlab, which brings NVRTC "
                      f"(pip install cugraphlab, or 'cugraphlab[cu12]' for CUDA 12)")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say(command, "interrupted")
        return EXIT_INTERRUPTED
    finally:
        if tracer is not None:
            tracer.stop()
