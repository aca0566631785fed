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
        "kami-no-ku. Without --out it plays on the default sound device (Ctrl-C stops), "
        "starting as soon as the joka (or the first card) is ready: the rest is synthesised "
        "meanwhile, in reading order.",
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
    p.add_argument("--pause", type=float, default=0.66, metavar="S",
                   help="seconds between a kami-no-ku and its shimo-no-ku (default 0.66, a measured reader's)")
    p.add_argument("--own-pauses", action="store_true",
                   help="with an imported voice, keep the reader's own pause between kami- and "
                   "shimo-no-ku where the recording has both (--pause for the others)")
    p.add_argument("--pitch", type=float, default=None, metavar="HZ",
                   help="the synthesised reader's reciting pitch, 150..400 Hz (default 215)")
    p.add_argument("--speed", type=float, default=1.0, metavar="X",
                   help="reading speed factor, 0.5..2 (by resampling: the pitch moves too)")
    p.add_argument("--json", action="store_true",
                   help="print the timeline as JSON (card order, times of kami start, kimariji, "
                   "shimo end); without --out nothing is played")
    p.add_argument("--device", default=None, help="output device (name or number) for playing")
    club = p.add_argument_group("club practice")
    club.add_argument("--set", default=None, metavar="CARDS", dest="card_set",
                      help="read only these poems, e.g. '1 5 22-30' (the cards on the floor)")
    club.add_argument("--karafuda", type=int, default=0, metavar="K",
                      help="also read K poems from outside the chosen set (--set or --cards), "
                      "chosen with the seed: cards that are not on the floor (空札)")
    club.add_argument("--order", default="random", metavar="random|musumefusahose",
                      help="reading order: the seeded shuffle (default) or the むすめふさほせ study "
                      "order (by first sound, the one-card sounds む す め ふ さ ほ せ first)")
    club.add_argument("--shimo-only", action="store_true",
                      help="read each card's shimo-no-ku only (下の句かるた, as in Hokkaido)")
    club.add_argument("--memorise", type=float, default=0.0, metavar="MIN",
                      help="a memorisation period of MIN minutes before the joka (15 in a match), "
                      "with a notice two minutes before its end and one at its end")
    club.add_argument("--replay", action="store_true",
                      help="read the Reader's saved session again from its start, in the same order "
                      "(感想戦); a headless reading is repeated with the same --seed and options")
    p.set_defaults(func=run)


def run(args) -> int:
    from trainer.library_noise import held
    with held():   # ALSA's and JACK's lines while devices are probed; a voice's damaged MP3 frames
        return _run(args)


def _run(args) -> int:
    from trainer.errors import UsageError
    settings, seed = _settings(args, UsageError)
    if args.out is not None:
        _check_out(args.out, UsageError)   # before the long preparation, not after it
    order, karafuda = _order(args, seed, UsageError)
    args.karafuda_cards = karafuda
    if args.out is None and not args.json:
        from audio.loudness import warm
        from audio.voice import RATE
        warm(RATE)   # every voice levels its clips: the meter's 1.2-s import starts now, on its own
        prepared = _prepare(args, settings, order)
        return 1 if prepared is None else _play(args, prepared, seed)
    programme = _build(args, settings, seed, order)
    if programme is None:
        return 1
    if args.out is not None:
        return _render(args, programme, seed)
    _print_json(programme, seed, args)
    return 0


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
    import math
    import random

    from audio.programme import ReadingSettings
    # --replay and --poems fix the order themselves: no seed to print that would not repeat it.
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    if args.replay or getattr(args, "poems", None) is not None:
        seed = None
    if args.cards is not None and not 1 <= args.cards <= 100:
        raise UsageError(f"read: --cards must be 1..100, not {args.cards}")
    _check_club(args, UsageError)
    if args.kami_only and args.shimo_only:
        raise UsageError("read: --kami-only and --shimo-only exclude each other; give one")
    if not math.isfinite(args.memorise) or not 0 <= args.memorise <= 60:
        raise UsageError(f"read: --memorise must be 0..60 minutes, not {args.memorise:g}")
    if args.pitch is not None and not (math.isfinite(args.pitch) and 150.0 <= args.pitch <= 400.0):
        raise UsageError(f"read: --pitch must be 150..400 Hz, not {args.pitch:g}")
    if getattr(args, "poems", None) is not None:
        args.poems = _poem_list(args.poems, UsageError)
        if args.card_set is not None or args.cards is not None or args.karafuda or args.replay \
                or args.order != "random":
            raise UsageError("read: --poems gives the reading itself; it takes no --set, --cards, "
                             "--karafuda, --order or --replay")
    try:
        settings = ReadingSettings(ma=args.ma, pause=args.pause, speed=args.speed,
                                   read_shimo=not args.kami_only, cards=args.cards,
                                   voice=args.voice, joka=not args.no_joka,
                                   read_kami=not args.shimo_only, memorise=60.0 * args.memorise,
                                   own_pauses=args.own_pauses)
    except ValueError as exc:
        raise UsageError(f"read: {exc}") from None
    return settings, seed


def _check_club(args, UsageError) -> None:
    """The club options, checked before anything is prepared: one line each."""
    from trainer.reader.session import ORDERS, parse_card_set
    if args.order not in ORDERS:
        raise UsageError(f"read: --order must be one of {', '.join(ORDERS)}, not {args.order!r}")
    if args.card_set is not None:
        if args.cards is not None:
            raise UsageError("read: give --set or --cards, not both")
        try:
            args.chosen = parse_card_set(args.card_set)
        except ValueError as exc:
            raise UsageError(f"read: --set: {str(exc)!r} is not a poem number or range "
                             "1..100 (e.g. --set '1 5 22-30')") from None
    else:
        args.chosen = None
    if args.karafuda < 0:
        raise UsageError(f"read: --karafuda must be 0 or more, not {args.karafuda}")
    if args.karafuda and args.card_set is None and args.cards is None:
        raise UsageError("read: --karafuda needs the cards on the floor: --set CARDS or --cards N")
    if args.replay and (args.seed is not None or args.card_set is not None or args.cards is not None
                        or args.karafuda or args.order != "random"):
        raise UsageError("read: --replay reads the saved session's own order; "
                         "it takes no --seed, --set, --cards, --karafuda or --order")


def _order(args, seed, UsageError) -> tuple[list[int], list[int]]:
    """(the reading order, the karafuda in it) from the club options."""
    import poems
    from trainer.reader.session import ReaderSession, read_session
    if args.replay:
        session, problem = read_session()
        if session is None:
            raise UsageError(f"read: --replay: {problem or 'there is no saved reading session to read again'}")
        return list(session.order), list(session.karafuda)
    if getattr(args, "poems", None):
        return list(args.poems), []                     # exactly these, in this order
    if args.chosen is None and not args.karafuda and args.order == "random":
        return poems.shuffled(seed)[: args.cards], []   # the plain reading, as before
    floor = args.chosen if args.chosen is not None else poems.shuffled(seed)[: args.cards]
    try:
        session = ReaderSession.new(floor, seed=seed, karafuda=args.karafuda, order=args.order)
    except ValueError as exc:
        raise UsageError(f"read: --karafuda: {exc}") from None
    return session.order, session.karafuda


def _poem_list(text: str, UsageError) -> list[int]:
    """`--poems 11,15,31`: poem numbers in reading order, each at most once."""
    from poems.numbers import PoemListError, poem_list
    if any(not item.strip() for item in text.split(",")):   # "11,,15": a number left out?
        raise UsageError(f"read: --poems wants poem numbers like 11,15,31 (not {text!r})")
    try:
        numbers = poem_list(text, unique=True)
    except PoemListError as exc:
        raise UsageError(f"read: --poems: {exc}") from None
    if not numbers:
        raise UsageError(f"read: --poems wants poem numbers like 11,15,31 (not {text!r})")
    return numbers


def _prepare(args, settings, order):
    """(voice, the order it can read, settings, memorisation notices), or None after
    telling the user why there is nothing to read."""
    from dataclasses import replace

    from audio.notices import notices_for
    from audio.render import open_voice
    from audio.voice import VoiceError
    try:
        voice = open_voice(args.voice, args.pitch)
        have = voice.available()
    except VoiceError as exc:
        print(f"karuta read: {exc}", file=sys.stderr)
        return None
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
        notices = notices_for(args.voice) if settings.memorise else None
    except VoiceError as exc:
        print(f"karuta read: {exc}", file=sys.stderr)
        return None
    return voice, order, settings, notices


def _build(args, settings, seed, order):
    """The whole programme (for --out and --json), or None after telling the user why there is none."""
    from audio.programme import Programme
    from audio.render import ProgressBar
    from audio.voice import VoiceError
    prepared = _prepare(args, settings, order)
    if prepared is None:
        return None
    voice, order, settings, notices = prepared
    try:
        _synthesise_ahead(voice, ([0] if settings.joka else []) + list(order))
        return Programme.build(voice, order, settings,
                               progress=ProgressBar(f"preparing {voice.name}"), notices=notices)
    except VoiceError as exc:
        print(f"\nkaruta read: {exc}", file=sys.stderr)
        return None


SYNTH_WORKERS = 2  # as the GUI: one HTS engine per worker thread (audio.synth.synthesize_all)


def _synthesise_ahead(voice, poems_in_order: list[int]) -> None:
    """The synthesised voice's missing clips, rendered in reading order by
    SYNTH_WORKERS workers into its cache before the programme is laid out
    (Programme.build would otherwise render them one by one on one core)."""
    from audio.render import ProgressBar
    from audio.synth import SynthVoice, synthesize_all
    if not isinstance(voice, SynthVoice):
        return
    todo = list(dict.fromkeys(poems_in_order))
    if all(voice.key(no, part) in voice.cache for no in todo for part in ("kami", "shimo")):
        return
    synthesize_all(ProgressBar(f"synthesising {voice.name}"), voice=voice, poems_to_do=todo,
                   workers=SYNTH_WORKERS)


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
          f"{len(programme.card_order)} cards; again: {_again(args, seed)})", file=sys.stderr)
    if args.json:
        _print_json(programme, seed, args)
    return 0


def _again(args, seed) -> str:
    """The option that reads this session again: its seed, the saved session, or its poems."""
    if args.replay:
        return "--replay"
    if getattr(args, "poems", None):
        return "--poems " + ",".join(map(str, args.poems))
    return f"--seed {seed}"


def _print_json(programme, seed, args) -> None:
    data = {"seed": seed, **programme.timeline()}
    data["order"] = "replay" if args.replay else args.order
    data["karafuda"] = sorted(n for n in args.karafuda_cards if n in programme.card_order)
    for card in data["cards"]:
        card["karafuda"] = card["poem"] in args.karafuda_cards
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
    print()


def _play(args, prepared, seed) -> int:
    """Play on the sound device, starting as soon as the joka and the first card are
    ready: the rest is synthesised in reading order ahead of the player (`_Feed`)."""
    import time

    from audio.player import CARD_STARTED, DEVICE_BACK, DEVICE_LOST, FINISHED, Player
    from poems.numbers import whole_number
    voice, order, settings, notices = prepared
    number = whole_number(args.device) if args.device else None   # never int() of "²"
    device = number if number is not None else args.device
    player = Player(device=device).open()   # first: the new stream settles while cards are made
    opened = time.perf_counter()
    feed = None
    try:
        if player.silent:
            from trainer.commands.invocation import command_name
            print(f"karuta read: nothing can be played: {player.silent_reason or 'no sound device'}.\n"
                  f"Render the session to a file instead:\n"
                  f"  {command_name()} read --out session.flac {_again(args, seed)}", file=sys.stderr)
            return 1
        n = len(order)
        print(f"karuta read: {n} cards (again: {_again(args, seed)}); "
              f"{player.status_message}. Ctrl-C stops.", file=sys.stderr, flush=True)
        if settings.memorise:
            print(f"memorisation: {settings.memorise / 60:g} min, then the reading",
                  file=sys.stderr, flush=True)
        feed = _Feed(voice, order, settings, notices, player).start()
        try:
            if not feed.wait_first():
                print(f"\nkaruta read: {feed.error}", file=sys.stderr)
                return 1
            # a new stream loses its first ms and may stall briefly: start into it
            time.sleep(max(0.0, 0.2 - (time.perf_counter() - opened)))
            player.start()
            while True:
                for ev in player.poll_events():
                    if ev.kind == CARD_STARTED and ev.card_index >= 0:
                        kara = " (karafuda)" if ev.poem in args.karafuda_cards else ""
                        print(f"card {ev.card_index + 1}/{n}: poem {ev.poem}{kara}", flush=True)
                    elif ev.kind == CARD_STARTED:
                        print("joka", flush=True)
                    elif ev.kind in (DEVICE_LOST, DEVICE_BACK):   # the reading goes on either way
                        print(f"karuta read: {player.status_message}", file=sys.stderr, flush=True)
                if player.state == FINISHED:
                    break
                if feed.error is not None and player.waits:   # ran out, and no more will come
                    print(f"\nkaruta read: {feed.error}", file=sys.stderr)
                    return 1
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
        if player.waits:
            print(f"karuta read: the reading waited {player.waits} time(s) for synthesis",
                  file=sys.stderr)
        return 0
    finally:
        if feed is not None:
            feed.stop()
        player.close()


class _Feed:
    """Lays the programme out card by card on a thread of its own (`Programme.grow`) and
    hands each step to the player: the first is loaded, the others extend it. The
    synthesised voice's clips are made by `SynthesisAhead` on SYNTH_WORKERS threads in
    reading order, so the player rarely waits (and if it does, it waits silent)."""

    def __init__(self, voice, order, settings, notices, player):
        import threading

        from audio.synth import SynthesisAhead, SynthVoice
        self.ahead = None
        if isinstance(voice, SynthVoice):
            self.ahead = SynthesisAhead(voice, ([0] if settings.joka else []) + list(order),
                                        workers=SYNTH_WORKERS)
            voice = self.ahead.voice
        self.voice, self.order, self.settings, self.notices = voice, order, settings, notices
        self.player = player
        self.error: str | None = None
        self.loaded = False
        self._first = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="programme-feed", daemon=True)

    def start(self) -> "_Feed":
        if self.ahead is not None:
            self.ahead.start()
        self._thread.start()
        return self

    def _run(self) -> None:
        from audio.programme import Programme
        from audio.voice import VoiceError
        try:
            # The joka alone is the first step: it sounds for about 20 s, and the first
            # card (made beside it on the other worker) is placed long before it is due.
            first = 0 if self.settings.joka else 1
            for step in Programme.grow(self.voice, self.order, self.settings, self.notices,
                                       first_cards=first):
                if self._stopping.is_set():
                    return
                if not self.loaded:
                    self.player.load(step)
                    self.loaded = True
                    self._first.set()
                else:
                    self.player.extend(step)
        except VoiceError as exc:
            self.error = str(exc)
        finally:
            self._first.set()

    def wait_first(self) -> bool:
        """Wait for the first step (the joka and the first card); False if there is none."""
        while not self._first.wait(0.1):   # in slices: Ctrl-C is heard meanwhile
            pass
        return self.loaded

    def stop(self) -> None:
        self._stopping.set()
        if self.ahead is not None:
            self.ahead.stop()
