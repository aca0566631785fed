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

from trainer.errors import Failure, UsageError

COMMAND_MODULES = (
    "trainer.commands.poems_cmd",     # poems, kimariji
    "trainer.commands.read_cmd",      # read (render or play a session)
    "trainer.commands.import_cmd",    # import-readings
    "trainer.commands.simulate_cmd",  # simulate kyogi|mubeyama ...
    "trainer.commands.stats_cmd",     # stats export ...
    "trainer.commands.score_cmd",     # score umebotan FILE
    "trainer.commands.server_cmd",    # serve, bot
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (``karuta: ...``), not usage + message."""

    def error(self, message):
        raise UsageError(f"{self.prog.removeprefix('karuta ')}: {message} "
                         f"(see `{self.prog} --help`)" if self.prog != "karuta"
                         else f"{message} (see `karuta --help`)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
        from trainer.commands.invocation import command_name
        karuta = command_name()
        print(
            "karuta: no display found (DISPLAY is not set), so the window cannot open.\n"
            "The headless reader works without one:\n"
            f"  {karuta} read --out session.flac     # render a full reading to a file\n"
            f"  {karuta} read                        # play it on the default sound device\n"
            f"  {karuta} --help                      # everything else",
            file=sys.stderr,
        )
        return 1
    from trainer.display_probe import silent_display
    from trainer.instance_lock import AlreadyRunning, data_folder_lock
    silent = silent_display()   # Qt aborts (SIGABRT) on a display that does not answer
    if silent:
        print(f"karuta: {silent}", file=sys.stderr)
        return 1
    try:
        from trainer.ui.app import run
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("trainer.ui"):
            print("karuta: the application window is not built yet; see `karuta --help`.",
                  file=sys.stderr)
            return 1
        raise
    try:
        with data_folder_lock("this window"):   # two windows would both write the statistics
            return run(args)
    except AlreadyRunning as exc:
        print(f"karuta: {exc}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"karuta: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - building the parser imports the games' options
        return _known_or_unexpected(exc, None)
    func = getattr(args, "func", run_gui)
    try:
        return func(args) or 0
    except UsageError as exc:
        print(f"karuta: {exc}", file=sys.stderr)
        return 2
    except Failure as exc:
        print(f"karuta: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("karuta: stopped", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the safety net: one line, details in a log
        return _known_or_unexpected(exc, args)


def _known_or_unexpected(exc: Exception, args) -> int:
    """Errors any command can meet (the data folder, the poem data) get their own line;
    anything else is a bug: one line naming it and the log holding the traceback."""
    from trainer.paths import DataDirError
    if isinstance(exc, DataDirError):
        print(f"karuta: {exc}", file=sys.stderr)
        return 2
    # By name: importing poems again would raise the same error while its data is damaged.
    if any(c.__name__ == "PoemDataError" for c in type(exc).__mro__):
        print(f"karuta: the poem data shipped with the trainer is damaged: {exc} "
              "(reinstall the trainer)", file=sys.stderr)
        return 1
    command = getattr(args, "command", None) or "gui"
    where = _write_crash_log(exc)
    print(f"karuta: {command} failed unexpectedly ({type(exc).__name__}: {exc}); "
          f"{where}", file=sys.stderr)
    return 1


def _write_crash_log(exc: Exception) -> str:
    """Append the traceback to karuta-errors.log in the data folder (or the temp folder)."""
    import tempfile
    import time
    import traceback
    text = "".join(traceback.format_exception(exc))
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    folders: list[str | os.PathLike[str]] = []
    try:
        from trainer.paths import data_dir
        folders.append(data_dir())
    except Exception:  # noqa: BLE001 - the data folder may be what failed
        pass
    folders.append(tempfile.gettempdir())
    for folder in folders:
        log = os.path.join(folder, "karuta-errors.log")
        try:   # never through a link planted at the log's name
            from trainer.safe_files import open_no_follow
            fd = open_no_follow(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            with open(fd, "a", encoding="utf-8") as f:
                f.write(f"--- {stamp} karuta {' '.join(sys.argv[1:])}\n{text}")
            return f"the details were written to {log}"
        except OSError:
            continue
    return "the details could not be written to a log file"


if __name__ == "__main__":
    sys.exit(main())
