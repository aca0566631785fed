"""`karuta read`: a full reading session, rendered to a file or played on the sound device."""
from __future__ import annotations

import json
import sys


def register(sub) -> None:
    p = sub.add_parser(
        "read",
        help="read a session aloud (joka + 100 poems), or render it to a WAV/FLAC file",
        description="Read a shuffled session as an official reader would: the joka, then every "
        "card's kami-no-ku, a pause, its shimo-no-ku held to its end, the ma, the next "
        "kami-no-ku. Without --out it plays on the default sound device (Ctrl-C stops).",
    )
    p.add_argument("--out", metavar="FILE", help="render to FILE (.wav or .flac) instead of playing")
    p.add_argument("--seed", type=int, default=None,
                   help="shuffle seed (default: a random one, printed so the session can be repeated)")
    p.add_argument("--cards", type=int, default=None, metavar="N",
                   help="read only the first N cards of the shuffled order (default: all 100)")
    p.add_argument("--poems", default=None, metavar="N[,N...]",
                   help="read exactly these poems in this order (e.g. 11,15,31) instead of a "
                   "shuffled session (--seed is then not used)")
    p.add_argument("--voice", default="synth", metavar="synth|NAME",
                   help="'synth' (offline synthesis, the default), the name of an imported "
                   "voice (karuta import-readings), or 'test-tones' (tone bursts, for checks)")
    p.add_argument("--no-joka", action="store_true", help="start with the first card, no joka")
    p.add_argument("--kami-only", action="store_true", help="read kami-no-ku only (a drill)")
    p.add_argument("--ma", type=float, default=1.0, metavar="S",
                   help="seconds from the end of a shimo-no-ku to the next kami-no-ku (default 1.0)")
    p.add_argument("--pause", type=float, default=1.0, metavar="S",
                   help="seconds between a kami-no-ku and its shimo-no-ku (default 1.0)")
    p.add_argument("--speed", type=float, default=1.0, metavar="X",
                   help="reading speed factor, 0.5..2 (by resampling: the pitch moves too)")
    p.add_argument("--json", action="store_true",
                   help="print the timeline as JSON (card order, times of kami start, kimariji, "
                   "shimo end); without --out nothing is played")
    p.add_argument("--device", default=None, help="output device (name or number) for playing")
    p.set_defaults(func=run)


def run(args) -> int:
    from trainer.cli import UsageError
    settings, seed = _settings(args, UsageError)
    if args.out is not None:
        _check_out(args.out, UsageError)   # before the long preparation, not after it
    programme = _build(args, settings, seed)
    if programme is None:
        return 1
    if args.out is not None:
        return _render(args, programme, seed)
    if args.json:
        _print_json(programme, seed)
        return 0
    return _play(args, programme, seed)


def _check_out(out: str, UsageError) -> None:
    """The render target: a .wav/.flac name whose folder we can write, never a folder,
    a device or a read-only file (the render is renamed over it at the end)."""
    import os
    import stat
    import tempfile
    from pathlib import Path

    from audio.render import file_format
    if not out.strip():
        raise UsageError("read: --out needs a file name (e.g. --out session.flac)")
    path = Path(out)
    try:
        st = path.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise UsageError(f"read: cannot write {out}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise UsageError(f"read: {out} is a folder; give a file name ending in .wav or .flac")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UsageError(f"read: {out} is not a regular file (a device or a pipe?); "
                         "render to an ordinary file")
    try:
        file_format(path)
    except ValueError as exc:
        raise UsageError(f"read: {exc}") from None
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"read: cannot write {out}: the folder {folder} does not exist")
    try:   # a real try, not os.access: root, read-only mounts and /proc all answer truly
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(f"read: cannot write {out}: the folder {folder} is not writable "
                         f"({exc.strerror or exc})") from None
    if st is not None and not os.access(path, os.W_OK):
        raise UsageError(f"read: {out} is read-only; it was left as it is")


def _settings(args, UsageError):
    import random

    from audio.programme import ReadingSettings
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    if args.cards is not None and not 1 <= args.cards <= 100:
        raise UsageError(f"read: --cards must be 1..100, not {args.cards}")
    if getattr(args, "poems", None) is not None:
        args.poems = _poem_list(args.poems, UsageError)
    try:
        settings = ReadingSettings(ma=args.ma, pause=args.pause, speed=args.speed,
                                   read_shimo=not args.kami_only, cards=args.cards,
                                   voice=args.voice, joka=not args.no_joka)
    except ValueError as exc:
        raise UsageError(f"read: {exc}") from None
    return settings, seed


def _poem_list(text: str, UsageError) -> list[int]:
    """`--poems 11,15,31`: poem numbers in reading order, each at most once."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise UsageError(f"read: --poems wants poem numbers like 11,15,31 (not {text!r})")
    numbers = []
    for t in items:
        if not t.isdigit():
            raise UsageError(f"read: --poems: {t!r} is not a poem number (1..100)")
        n = int(t)
        if not 1 <= n <= 100:
            raise UsageError(f"read: --poems: there is no poem {n} (1..100)")
        if n in numbers:
            raise UsageError(f"read: --poems: poem {n} is given twice")
        numbers.append(n)
    return numbers


def _build(args, settings, seed):
    """The programme, or None after telling the user why there is none."""
    from dataclasses import replace

    import poems
    from audio.programme import Programme
    from audio.render import ProgressBar, open_voice
    from audio.voice import VoiceError
    try:
        voice = open_voice(args.voice)
        have = voice.available()
    except VoiceError as exc:
        print(f"karuta read: {exc}", file=sys.stderr)
        return None
    order = list(args.poems) if getattr(args, "poems", None) else poems.shuffled(seed)
    if settings.cards is not None:
        order = order[: settings.cards]
    missing = [no for no in order if no not in have]
    if missing:
        order = [no for no in order if no in have]
        print(f"karuta read: voice {voice.name!r} has no reading of poem(s) "
              f"{', '.join(map(str, sorted(missing)))}; reading the {len(order)} it has",
              file=sys.stderr)
    if not order:
        print("karuta read: nothing to read", file=sys.stderr)
        return None
    if settings.joka and 0 not in have:
        print(f"karuta read: voice {voice.name!r} has no joka; starting with the first card",
              file=sys.stderr)
        settings = replace(settings, joka=False)
    settings = replace(settings, cards=None)
    try:
        return Programme.build(voice, order, settings,
                               progress=ProgressBar(f"preparing {voice.name}"))
    except VoiceError as exc:
        print(f"\nkaruta read: {exc}", file=sys.stderr)
        return None


def _render(args, programme, seed) -> int:
    from audio.render import ProgressBar, render_to_file
    try:
        path = render_to_file(programme, args.out, progress=ProgressBar("rendering"))
    except (OSError, RuntimeError) as exc:   # soundfile's errors are RuntimeErrors
        print(f"karuta read: cannot write {args.out}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nkaruta read: stopped; {args.out} not written", file=sys.stderr)
        return 130
    minutes, secs = divmod(programme.total_samples / programme.rate, 60)
    print(f"karuta read: wrote {path} ({int(minutes)}:{secs:04.1f}, "
          f"{len(programme.card_order)} cards, seed {seed})", file=sys.stderr)
    if args.json:
        _print_json(programme, seed)
    return 0


def _print_json(programme, seed) -> None:
    data = {"seed": seed, **programme.timeline()}
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
    print()


def _play(args, programme, seed) -> int:
    import time

    from audio.player import CARD_STARTED, DEVICE_BACK, DEVICE_LOST, FINISHED, Player
    device = int(args.device) if args.device and args.device.isdigit() else args.device
    player = Player(device=device).open()
    try:
        if player.silent:
            print(f"karuta read: {player.status_message}\n"
                  f"Nothing can be heard here; render the session instead:\n"
                  f"  karuta read --out session.flac --seed {seed}", file=sys.stderr)
            return 1
        print(f"karuta read: seed {seed}, {len(programme.card_order)} cards; "
              f"{player.status_message}. Ctrl-C stops.", file=sys.stderr)
        time.sleep(0.2)  # a new stream loses its first ms and may stall briefly: start into it
        player.load(programme)
        player.start()
        n = len(programme.card_order)
        try:
            while True:
                for ev in player.poll_events():
                    if ev.kind == CARD_STARTED and ev.card_index >= 0:
                        print(f"card {ev.card_index + 1}/{n}: poem {ev.poem}", flush=True)
                    elif ev.kind in (DEVICE_LOST, DEVICE_BACK):   # the reading goes on either way
                        print(f"karuta read: {player.status_message}", file=sys.stderr, flush=True)
                if player.state == FINISHED:
                    break
                time.sleep(0.05)
        except KeyboardInterrupt:
            player.stop()
            time.sleep(0.1)  # let the fade-out reach the speaker
            print("\nkaruta read: stopped", file=sys.stderr)
            return 130
        time.sleep(0.2)  # the last samples are still in the device's buffer
        if player.underflows:
            print(f"karuta read: {player.underflows} buffer underrun(s) during playback",
                  file=sys.stderr)
        return 0
    finally:
        player.close()
