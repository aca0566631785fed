"""Match mode played to the end through every rule of the engine, on a fake clock.

The whole stack runs as in the app: the reading driver builds a real `Programme`
with the tone voice (exact marks) and plays it on a real `Player` with the
``manual`` backend; the test is the sound card, handing the player one 10 ms
block after another on a fake perf_counter (`SessionClock`), so no real time
passes and every time is known. The human clicks cards on the territory widget
(qtbot) at chosen moments of that clock; the opponent is a scripted CPU that
touches given cards at given delays after the kimariji mark it hears and sends
the cards it is told to. After every read both sides' cards are checked against
the script, the engine and the floor the widget draws.

Two short matches (few cards a side) cover the rules: a take from one's own
side; a take from the opponent's side and the okurifuda (clicked by the player,
picked by the CPU); faults on the wrong side and on a karafuda; karadabu; the
double fault (two cards); simultaneous touches; both faults cancelling; a card
nobody takes; one match the player wins, one they lose.
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import random  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402

import poems  # noqa: E402
from audio.fake_voice import ToneVoice  # noqa: E402
from audio.player import FakeTime, Player  # noqa: E402
from trainer.players.karuta_cpu import identify  # noqa: E402
from trainer.rules.kyogi import FaultKind, Phase, Send, Touch, Touches  # noqa: E402
from trainer.rules.territory import Territory  # noqa: E402
from trainer.ui import settings as S  # noqa: E402
from trainer.ui.i18n import LANG  # noqa: E402
from trainer.ui.match_panel import CPU, HUMAN, MatchPanel, reaction_text  # noqa: E402
from trainer.ui.reading import ReadingDriver  # noqa: E402
from ui_fakes import ToneVoices  # noqa: E402

BLOCK = 480                # frames of one fake audio block: 10 ms at 48 kHz
TONE = ToneVoice()         # shared: its clips are cached


class SessionClock:
    """The session's perf_counter, moved on by the test, and the sound card that goes with it:
    every `BLOCK` of fake time the manual player fills a block that sounds at once."""

    def __init__(self, player: Player, start: float = 1000.0):
        self.player = player
        self.t = start
        self.audio_t = start          # when the next block sounds
        self.buf = np.zeros((BLOCK, 1), dtype=np.float32)
        self.tick = lambda: None      # what the GUI does on its timers: poll events, close races

    def now(self) -> float:
        return self.t

    __call__ = now

    def advance_to(self, t: float) -> None:
        step = BLOCK / self.player.rate
        while self.audio_t + step <= t:
            self.player.process(self.buf, BLOCK, FakeTime(self.audio_t, self.audio_t), None)
            self.audio_t += step
            self.t = self.audio_t
            self.tick()
        self.t = max(self.t, t)

    def advance_until(self, cond, limit_s: float = 60.0) -> None:
        end = self.t + limit_s
        while not cond():
            assert self.t < end, "the match did not get there in a minute of reading"
            self.advance_to(self.t + BLOCK / self.player.rate)


class ScriptedCPU:
    """The opponent's hands, written down: per poem heard, (card, ms after the kimariji mark)."""

    def __init__(self):
        self.script: dict[int, tuple[tuple[int, int], ...]] = {}
        self.sends: list[int] = []
        self.heard: dict[int, int] = {}        # poem -> kimariji mark (ms) it planned from

    def touches(self, view, heard):
        poem = identify(heard.morae)           # it knows the card by ear, like the real CPU
        self.heard[poem] = heard.kimariji_ms
        return Touches(CPU, tuple(Touch(card, heard.kimariji_ms + dt)
                                  for card, dt in self.script.get(poem, ())))

    def choose_send(self, view):
        card = self.sends.pop(0)
        assert view.side_of(card) == CPU, f"the script sends {card}, not on the CPU's side"
        return Send(CPU, card)


@dataclass
class Step:
    """One read: who touches what when, who sends what, what must follow."""
    poem: int
    own: set[int]                          # the player's side afterwards
    opp: set[int]                          # the CPU's side afterwards
    human: tuple[tuple[int, int], ...] = ()    # (card, ms after the kimariji mark)
    cpu: tuple[tuple[int, int], ...] = ()
    okuri: tuple[int, ...] = ()            # cards the player clicks to send
    cpu_sends: tuple[int, ...] = ()
    taker: int | None = None
    faults: dict[int, FaultKind] = field(default_factory=dict)
    simultaneous: bool = False
    cancelled: bool = False
    unclaimed: bool = False
    reaction: str | None = None            # what the reaction label says


def _rest_of_stack(first: list[int]) -> list[int]:
    rest = [n for n in range(1, 101) if n not in first]
    random.Random(7).shuffle(rest)
    return first + rest


@pytest.fixture
def match(qtbot, tmp_path):
    LANG.set("en")
    settings = S.Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    settings.set(S.JOKA, False)
    settings.set(S.MA, 0.3)
    settings.set(S.PAUSE, 0.3)
    voices = ToneVoices(voice=TONE)
    clock = SessionClock(voices.player())
    driver = ReadingDriver(voices)
    from trainer.stats.store import StatsStore
    panel = MatchPanel(settings, voices, driver=driver, clock=clock,
                       store=StatsStore.open(tmp_path / "stats.sqlite3"))
    qtbot.addWidget(panel)
    panel.resize(1500, 900)
    panel.show()
    qtbot.waitExposed(panel)

    def tick():
        driver._poll()        # what the driver's 15 ms timer and the panel's 10 ms timer do
        panel.tick()
    clock.tick = tick
    yield panel, clock
    panel.shutdown()


def _click(qtbot, panel, card):
    qtbot.mouseClick(panel.floor, Qt.MouseButton.LeftButton, pos=panel.floor.card_centre(card).toPoint())


def _expected_kimariji_ms(panel, index: int, poem: int) -> int:
    """The dynamic kimariji mark from the programme and poems.kimariji, not the panel's helper."""
    prog = panel.driver.programme
    n = len(poems.kimariji.dynamic(panel.state.read)[poem])
    mora = poems.get(poem).kimariji_mora_count(n) - 1
    start = panel.driver.mark_time(index, "kami_start")
    offset = prog.mark_sample(index, f"kami:mora:{mora}") - prog.mark_sample(index, "kami_start")
    return round((start + offset / prog.rate - panel.epoch) * 1000)


def _assert_floor(panel, own: set[int], opp: set[int]) -> None:
    """Engine, script and the floor the widget draws agree, card for card."""
    state = panel.state
    assert set(state.side(HUMAN).cards()) == own
    assert set(state.side(CPU).cards()) == opp
    shown = panel.floor.floor
    assert shown.own.rows() == state.side(HUMAN).rows()
    assert shown.opp.rows() == state.side(CPU).rows()
    rects = panel.floor.card_rects()
    assert {c for c, (is_own, _) in rects.items() if is_own} == own
    assert {c for c, (is_own, _) in rects.items() if not is_own} == opp
    mid = panel.floor.height() / 2
    assert all((r.top() > mid) == is_own for is_own, r in rects.values())
    mine, theirs = state.scores()
    assert f"{mine} cards left" in panel.scores.text() and f"{theirs} cards left" in panel.scores.text()
    state.check_invariants()


def play(qtbot, panel, clock, human_side, cpu_side, steps: list[Step]) -> None:
    cpu = ScriptedCPU()
    for s in steps:
        cpu.script[s.poem] = s.cpu
        cpu.sends += list(s.cpu_sends)
    sides = [Territory.arranged(human_side), Territory.arranged(cpu_side)]
    panel.new_match(3, sides=sides, yomifuda=_rest_of_stack([s.poem for s in steps]), cpu=cpu)
    panel.begin_match()
    with qtbot.waitSignal(panel.driver.ready, timeout=20000):
        pass
    _assert_floor(panel, set(human_side), set(cpu_side))
    for n, step in enumerate(steps, 1):
        clock.advance_until(lambda: panel.session.race is not None)
        assert panel.session.race.poem == step.poem
        index = panel.session.race.index
        current = panel.state.current_read()
        assert abs(current.kimariji_ms - _expected_kimariji_ms(panel, index, step.poem)) <= 1
        assert cpu.heard[step.poem] == current.kimariji_ms     # the CPU plans from the same mark
        for card, dt in sorted(step.human, key=lambda t: t[1]):
            clock.advance_to(panel.epoch + (current.kimariji_ms + dt) / 1000)
            _click(qtbot, panel, card)
        clock.advance_until(lambda taken=n: len(panel.state.outcomes) == taken)
        outcome = panel.state.outcomes[-1]
        assert outcome.poem == step.poem
        assert outcome.taker == step.taker
        assert {f.seat: f.kind for f in outcome.faults} == step.faults
        assert (outcome.simultaneous, outcome.cancelled, outcome.unclaimed) == \
            (step.simultaneous, step.cancelled, step.unclaimed)
        assert outcome.karafuda == (step.poem not in panel.state.in_play)
        if step.reaction is not None:
            assert panel.reaction.text() == step.reaction
        if step.okuri:
            assert panel.state.phase is Phase.OKURI and panel.state.owing[0] == HUMAN
            assert "okurifuda" in panel.banner.text()
            assert panel.driver.state == "held"            # the reader waits for the choice
            for card in step.okuri:
                _click(qtbot, panel, card)
            assert panel.driver.state != "held" or panel.phase == "over"
        assert panel.state.phase is not Phase.OKURI
        assert not cpu.sends or cpu.sends[0] not in step.cpu_sends, "the CPU did not send its cards"
        _assert_floor(panel, step.own, step.opp)
    assert not cpu.sends


def test_a_match_the_player_wins(qtbot, match):
    panel, clock = match
    human, opp = [64, 3, 5, 7], [10, 12, 14, 16]
    steps = [
        # あさぼらけあ (31) is a karafuda; nobody touches, nothing moves.
        Step(31, own={64, 3, 5, 7}, opp={10, 12, 14, 16}),
        # あさぼらけう (64) is now decided at あさぼ: the reaction counts from the ぼ.
        Step(64, own={3, 5, 7}, opp={10, 12, 14, 16}, human=((64, 300),), taker=HUMAN,
             reaction="+300 ms"),
        # Taken from the CPU's side, first: the player sends an okurifuda, clicking it.
        Step(10, own={5, 7}, opp={12, 14, 16, 3}, human=((10, 250),), cpu=((10, 400),),
             okuri=(3,), taker=HUMAN, reaction="+250 ms"),
        # Touching while a karafuda is read: the CPU sends a card of its choice.
        Step(80, own={5, 7, 12}, opp={14, 16, 3}, human=((12, 200),), cpu_sends=(12,),
             faults={HUMAN: FaultKind.KARAFUDA}, reaction="fault +200 ms"),
        # Both touch during a karafuda: the faults cancel, nothing moves.
        Step(81, own={5, 7, 12}, opp={14, 16, 3}, human=((14, 220),), cpu=((5, 240),),
             faults={HUMAN: FaultKind.KARAFUDA, CPU: FaultKind.KARAFUDA}, cancelled=True),
        # Same millisecond: the card goes to the owner of the side (the player).
        Step(5, own={7, 12}, opp={14, 16, 3}, human=((5, 280),), cpu=((5, 280),), taker=HUMAN,
             simultaneous=True, reaction="+280 ms"),
        # The CPU touches the player's side while the player takes from the CPU's: the CPU's
        # double fault, two cards to send (okurifuda + penalty), the player's side is empty:
        # the player wins.
        Step(14, own=set(), opp={16, 3, 7, 12}, human=((14, 300),), cpu=((7, 200),), okuri=(7, 12),
             taker=HUMAN, faults={CPU: FaultKind.DOUBLE}),
    ]
    play(qtbot, panel, clock, human, opp, steps)
    assert panel.phase == "over" and panel.state.winner() == HUMAN
    assert panel.pages.currentIndex() == 1
    assert panel.result.verdict.text() == "You won (by 4)"
    details = panel.result.details.text()
    assert "Mean reaction time 282 ms" in details        # (300 + 250 + 280 + 300) / 4
    assert "2 faults" in details and "Cards taken: you 4, opponent 0" in details
    assert panel.result.log.count() == len(steps)
    lines = [panel.result.log.item(k).text() for k in range(panel.result.log.count())]
    assert lines[1] == "  2. あさぼ (was あさぼらけう)（64） → You +300 ms"
    assert lines[2] == "  3. これ（10） → You +250 ms （Opponent (CPU) +400 ms）"
    assert lines[4].endswith("[You: fault on a karafuda] [Opponent (CPU): fault on a karafuda]")
    # Every read that concerned the player is kept for the statistics; the untouched karafuda is not.
    trials = panel._store._conn.execute(
        "SELECT kind, card, correct, reaction_ms, fault, answer FROM trials ORDER BY id").fetchall()
    karafuda = FaultKind.KARAFUDA.value
    assert trials == [("match", 64, 1, 300.0, None, "take"), ("match", 10, 1, 250.0, None, "take"),
                      ("match", 80, 0, 200.0, karafuda, "fault"), ("match", 81, 0, 220.0, karafuda, "fault"),
                      ("match", 5, 1, 280.0, None, "take"), ("match", 14, 1, 300.0, None, "take")]


def test_a_match_the_player_loses(qtbot, match):
    panel, clock = match
    human, opp = [20, 22, 24, 26], [40, 42, 44, 46, 48, 50, 52, 54]
    steps = [
        # The CPU takes from its own side.
        Step(40, own={20, 22, 24, 26}, opp={42, 44, 46, 48, 50, 52, 54}, cpu=((40, 250),), taker=CPU),
        # The CPU takes from the player's side and picks its okurifuda.
        Step(20, own={22, 24, 26, 42}, opp={44, 46, 48, 50, 52, 54}, cpu=((20, 200),), cpu_sends=(42,),
             taker=CPU),
        # The player touches the CPU's side while the CPU takes from the player's: double fault,
        # two cards come over.
        Step(22, own={24, 26, 42, 46, 48}, opp={44, 50, 52, 54}, human=((44, 150),), cpu=((22, 220),),
             cpu_sends=(46, 48), taker=CPU, faults={HUMAN: FaultKind.DOUBLE}, reaction="fault +150 ms"),
        # Both territories touched during a karafuda: karadabu, two cards.
        Step(83, own={24, 26, 42, 46, 48, 50, 52}, opp={44, 54}, human=((24, 100), (50, 160)),
             cpu_sends=(50, 52), faults={HUMAN: FaultKind.KARADABU}, reaction="fault +100 ms"),
        # Nobody touches: its owner puts the card aside.
        Step(26, own={24, 42, 46, 48, 50, 52}, opp={44, 54}, unclaimed=True),
        # The player touches their own side, the card is on the CPU's: a fault; the CPU takes
        # its card and sends its last one: the CPU's side is empty, the player loses.
        Step(54, own={24, 42, 44, 46, 48, 50, 52}, opp=set(), human=((24, 180),), cpu=((54, 300),),
             cpu_sends=(44,), taker=CPU, faults={HUMAN: FaultKind.WRONG_SIDE}, reaction="fault +180 ms"),
    ]
    play(qtbot, panel, clock, human, opp, steps)
    assert panel.phase == "over" and panel.state.winner() == CPU
    assert panel.result.verdict.text() == "You lost (by 7)"
    assert "3 faults" in panel.result.details.text()      # dabu, karadabu, wrong side


def current_kimariji(no, read):
    now = poems.kimariji.current(no, read)
    return now.kana, now.mora


def test_current_kimariji_is_the_dynamic_one():
    """The session's mark agrees with poems.kimariji.dynamic over random reads (karafuda included)."""
    rng = random.Random(5)
    for _ in range(60):
        read = rng.sample(range(1, 101), rng.randrange(0, 99))
        unread = [n for n in range(1, 101) if n not in read]
        table = poems.kimariji.dynamic(read)
        for no in rng.sample(unread, min(5, len(unread))):
            kana, mora = current_kimariji(no, read)
            assert kana == table[no]
            assert mora == poems.get(no).kimariji_mora_count(len(kana)) - 1
    assert current_kimariji(64, [31])[0] == "あさぼ"
    assert current_kimariji(64, [])[0] == "あさぼらけう"


def test_reaction_label_names_the_kimariji_in_force():
    from trainer.ui.match_panel import kimariji_note
    LANG.set("en")
    assert kimariji_note(64, "あさぼ") == "kimariji あさぼ (was あさぼらけう)"
    assert kimariji_note(64, "あさぼらけう") == "kimariji あさぼらけう"
    assert reaction_text(300, False) == "+300 ms"


class _Press:
    def __init__(self, timestamp_ms):
        self._ts = timestamp_ms

    def timestamp(self):
        return self._ts


def test_a_press_the_gui_thread_was_late_for_is_stamped_by_its_window_system_time(qapp, monkeypatch):
    """On X11/Wayland the press's own timestamp (CLOCK_MONOTONIC ms) bounds the stamp."""
    import time

    from PySide6.QtGui import QGuiApplication

    from trainer.ui.territory import press_delay
    now_ms = 5_000_000_123                                      # a frozen perf_counter: no real time passes
    monkeypatch.setattr(time, "perf_counter", lambda: now_ms / 1000)
    assert press_delay(_Press(now_ms - 52)) == 0.0              # offscreen: timestamps are synthetic
    monkeypatch.setattr(QGuiApplication, "platformName", staticmethod(lambda: "xcb"))
    late = press_delay(_Press((now_ms - 52) % 2**32))
    assert late == pytest.approx(0.051)                         # 52 ms old, less the timestamp's 1 ms
    assert press_delay(_Press(now_ms % 2**32)) == 0.0           # delivered at once
    assert press_delay(_Press((now_ms + 10**6) % 2**32)) == 0.0  # another epoch


def test_wait_lets_the_player_rearrange_between_reads_and_the_engine_follows(qtbot, match):
    """待った: the reader holds; once the read is settled the player drags a card of their own
    side; the engine's side is the one on screen; W again releases the reader."""
    from trainer.rules.territory import Place
    panel, clock = match
    human, opp = [64, 3, 5, 7], [10, 12, 14, 16]
    panel.new_match(3, sides=[Territory.arranged(human), Territory.arranged(opp)],
                    yomifuda=_rest_of_stack([31]), cpu=ScriptedCPU())
    panel.begin_match()
    with qtbot.waitSignal(panel.driver.ready, timeout=20000):
        pass
    clock.advance_until(lambda: panel.session.race is not None)  # あさぼらけあ (a karafuda) is read
    panel.command("wait")
    assert panel.driver.state == "held" and not panel.floor.arranging   # the read is not settled yet
    clock.advance_until(lambda: len(panel.state.outcomes) == 1)
    assert panel.floor.arranging and "rearrange" in panel.banner.text()
    target = Place(row=0, end="right", index=0)
    assert panel.floor.move_card(7, target)
    assert panel.state.side(HUMAN).rows() == panel.floor.floor.own.rows()
    assert panel.state.side(HUMAN).locate(7) == target
    assert panel.state.log[-1].kind == "arrange"
    panel.command("wait")
    assert not panel.floor.arranging and panel.driver.state == "playing"
    panel.state.check_invariants()
