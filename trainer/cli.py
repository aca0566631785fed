"""The `karuta` command line.

Each subcommand lives in its own module that defines ``register(subparsers)``
and sets ``func`` on its parser. Modules listed here must import nothing heavy
at module level (no Qt, no numpy): `karuta poems` has to start fast and
headless. A module that is not there yet is skipped, so the CLI keeps working
while the project grows.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

COMMAND_MODULES = (
    "trainer.commands.poems_cmd",     # poems, kimariji
    "trainer.commands.read_cmd",      # read (render or play a session)
    "trainer.commands.import_cmd",    # import-readings
    "trainer.commands.simulate_cmd",  # simulate kyogi|mubeyama ...
    "trainer.commands.stats_cmd",     # stats export ...
)


class UsageError(Exception):
    """A bad argument: one line on stderr, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="karuta",
        description="Reader, judge and trainer for kyogi karuta. "
        "With no subcommand, opens the application window.",
    )
    from trainer import __version__
    parser.add_argument("--version", action="version", version=f"karuta {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    gui = sub.add_parser("gui", help="open the application window (the default)")
    gui.set_defaults(func=run_gui)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(sub)
    return parser


def has_display() -> bool:
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or \
            os.environ.get("QT_QPA_PLATFORM") in ("offscreen", "minimal")
    return True


def run_gui(args) -> int:
    if not has_display():
        print(
            "karuta: no display found (DISPLAY is not set), so the window cannot open.\n"
            "The headless reader works without one:\n"
            "  karuta read --out session.flac     # render a full reading to a file\n"
            "  karuta read                        # play it on the default sound device\n"
            "  karuta --help                      # everything else",
            file=sys.stderr,
        )
        return 1
    try:
        from trainer.ui.app import run
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("trainer.ui"):
            print("karuta: the application window is not built yet; see `karuta --help`.",
                  file=sys.stderr)
            return 1
        raise
    return run(args)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", run_gui)
    try:
        return func(args) or 0
    except UsageError as exc:
        print(f"karuta: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    # Under `python -m trainer.cli` this file runs as __main__; commands import
    # UsageError from trainer.cli, so dispatch through that module, not this copy.
    from trainer.cli import main as _main
    sys.exit(_main())
