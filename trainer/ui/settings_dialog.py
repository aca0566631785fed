"""The settings dialog: language, reading timing, voice, sound output, beginner aids, match options.

Sound output: the devices PortAudio lists (`sounddevice.query_devices()`, outputs
only; "System default" first), a volume, and a test tone played through the
shared player with the choice as it stands, so the person hears where the
reading will come out before saving (Cancel puts the saved choice back).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox)

from trainer.ui import settings as S
from trainer.ui.i18n import LANG, add_messages, tr
from trainer.ui.kimariji_text import SPELLING

add_messages({
    "settings.judge_window": ("同時の判定幅（ms）", "Same-time window (ms)"),
    "settings.judge_window_tip": (
        "この差以内で触れた場合は同時とみなし、札のある陣の選手が取ります",
        "Touches of the read card this close count as the same time: the card goes to "
        "the player whose side it is on"),
    "settings.spelling": ("決まり字の書き方", "Kimariji written"),
    "settings.spelling_sound": ("読む音で（おうこ・なにわが）", "As read aloud (おうこ, なにわが)"),
    "settings.spelling_historical": ("歴史的仮名遣いで（あふこ・なにはが）",
                                     "In historical kana (あふこ, なにはが)"),
})

# Sound output and end-game practice (a table of their own: the one above grows elsewhere).
add_messages({
    "settings.device": ("音声出力", "Sound output"),
    "settings.device_default": ("システムの既定", "System default"),
    "settings.volume": ("音量", "Volume"),
    "settings.test_tone": ("テスト音", "Test tone"),
    "settings.tone_played": ("テスト音を鳴らしました", "Test tone played"),
    "settings.tone_busy": ("読みの途中なので鳴らせません（先に読みを止めてください）",
                           "A reading is under way: stop it first, the tone would replace it"),
    "settings.tone_silent": ("音声出力がありません：無音です（{why}）", "No sound device: silent ({why})"),
    "settings.cards_per_side": ("一人の札の枚数", "Cards per side"),
    "settings.cards_per_side_tip": ("25 枚より少なくすると終盤の練習になります（例：4 対 4）",
                                    "Fewer than 25 practises the end of a match (4 v 4, say)"),
})

# The joka's own gap and an imported reader's own pauses (issue 25).
add_messages({
    "settings.joka_gap": ("序歌の下の句を繰り返す前の間（秒）",
                          "Joka: pause before its shimo-no-ku is read again (s)"),
    "settings.own_pauses": ("取り込んだ読手の上の句と下の句の間をそのまま使う",
                            "Keep an imported reader's own pause between kami and shimo"),
    "settings.own_pauses_tip": (
        "取り込んだ録音で、読手が上の句と下の句の間に置いた間を使います（録音から分からない札は上の設定）。"
        "合成音声には関係しません",
        "With an imported voice, each poem keeps the pause its reader made between kami- and "
        "shimo-no-ku (where the recording tells it; the setting above elsewhere). "
        "The synthesised voice is not affected"),
})


def output_devices() -> list[str]:
    """The names of the output devices PortAudio lists (none if PortAudio is missing)."""
    try:
        import sounddevice as sd
        devices = sd.query_devices()
    except Exception:  # noqa: BLE001 - no PortAudio, or it cannot list: the default only
        return []
    return list(dict.fromkeys(d["name"] for d in devices if d.get("max_output_channels", 0) > 0))


def whole_range(key: S.Key) -> tuple[int, int]:
    """A bounded whole-number setting's range, for its spin box or slider."""
    assert key.lo is not None and key.hi is not None, f"{key.name} has no range"
    return int(key.lo), int(key.hi)


class SettingsDialog(QDialog):
    def __init__(self, settings: S.Settings, voices: list[str], parent=None, voice_book=None,
                 devices: list[str] | None = None):
        """`voice_book` plays the test tone (the shared player); `devices` stands in for
        the devices PortAudio lists (tests)."""
        super().__init__(parent)
        self.settings = settings
        self.voice_book = voice_book
        self.setWindowTitle(tr("settings.title"))
        form = QFormLayout(self)

        self.language = QComboBox()
        self.language.addItem("日本語", "ja")
        self.language.addItem("English", "en")
        self.language.setCurrentIndex(0 if LANG.code == "ja" else 1)
        form.addRow(tr("settings.language"), self.language)

        self.ma = self._seconds(S.MA)
        form.addRow(tr("settings.ma"), self.ma)
        self.pause = self._seconds(S.PAUSE)
        form.addRow(tr("settings.pause"), self.pause)
        self.joka_gap = self._seconds(S.JOKA_GAP)
        form.addRow(tr("settings.joka_gap"), self.joka_gap)
        self.own_pauses = QCheckBox(tr("settings.own_pauses"))
        self.own_pauses.setChecked(settings.get(S.OWN_PAUSES))
        self.own_pauses.setToolTip(tr("settings.own_pauses_tip"))
        form.addRow(self.own_pauses)
        self.speed = QDoubleSpinBox(decimals=2, singleStep=0.05, minimum=S.SPEED.lo, maximum=S.SPEED.hi)
        self.speed.setValue(settings.get(S.SPEED))
        form.addRow(tr("settings.speed"), self.speed)
        self.pitch = QDoubleSpinBox(decimals=0, singleStep=5, minimum=S.PITCH.lo, maximum=S.PITCH.hi)
        self.pitch.setValue(settings.get(S.PITCH))
        form.addRow(tr("settings.pitch"), self.pitch)

        self.voice = QComboBox()
        self.voice.addItem(tr("settings.voice_synth"), "synth")
        for name in voices:
            self.voice.addItem(name, name)
        k = self.voice.findData(settings.get(S.VOICE))
        self.voice.setCurrentIndex(max(0, k))
        form.addRow(tr("settings.voice"), self.voice)

        self.device = QComboBox()
        self.device.addItem(tr("settings.device_default"), "")
        for name in output_devices() if devices is None else devices:
            self.device.addItem(name, name)
        saved = settings.get(S.OUTPUT_DEVICE)
        if saved and self.device.findData(saved) < 0:
            self.device.addItem(saved, saved)       # not plugged in now: kept, not forgotten
        self.device.setCurrentIndex(max(0, self.device.findData(saved)))
        form.addRow(tr("settings.device"), self.device)
        self.volume = QSlider(Qt.Orientation.Horizontal)
        self.volume.setRange(*whole_range(S.VOLUME))
        self.volume.setValue(settings.get(S.VOLUME))
        self.volume_label = QLabel()
        self.volume.valueChanged.connect(lambda v: self.volume_label.setText(f"{v} %"))
        self.volume_label.setText(f"{self.volume.value()} %")
        self.test_button = QPushButton(tr("settings.test_tone"))
        self.test_button.clicked.connect(self.test_tone)
        self.test_button.setEnabled(voice_book is not None and hasattr(voice_book, "test_tone"))
        row = QHBoxLayout()
        row.addWidget(self.volume, 1)
        row.addWidget(self.volume_label)
        row.addWidget(self.test_button)
        form.addRow(tr("settings.volume"), row)
        self.tone_status = QLabel()
        self.tone_status.setWordWrap(True)
        form.addRow(self.tone_status)

        self.joka = QCheckBox(tr("settings.joka"))
        self.joka.setChecked(settings.get(S.JOKA))
        form.addRow(self.joka)
        self.kimariji = QCheckBox(tr("settings.kimariji"))
        self.kimariji.setChecked(settings.get(S.SHOW_KIMARIJI))
        form.addRow(self.kimariji)
        self.spelling = QComboBox()
        for code in S.KIMARIJI_SPELLING.choices or ():
            self.spelling.addItem(tr(f"settings.spelling_{code}"), code)
        self.spelling.setCurrentIndex(max(0, self.spelling.findData(settings.get(S.KIMARIJI_SPELLING))))
        form.addRow(tr("settings.spelling"), self.spelling)
        self.dakuten = QCheckBox(tr("settings.dakuten"))
        self.dakuten.setChecked(settings.get(S.DAKUTEN))
        form.addRow(self.dakuten)
        self.memorise = QSpinBox()
        self.memorise.setRange(*whole_range(S.MEMORISE_MIN))
        self.memorise.setValue(settings.get(S.MEMORISE_MIN))
        form.addRow(tr("settings.memorise"), self.memorise)
        self.cards_per_side = QSpinBox()
        self.cards_per_side.setRange(*whole_range(S.CARDS_PER_SIDE))
        self.cards_per_side.setValue(settings.get(S.CARDS_PER_SIDE))
        self.cards_per_side.setToolTip(tr("settings.cards_per_side_tip"))
        form.addRow(tr("settings.cards_per_side"), self.cards_per_side)
        self.judge_window = QSpinBox(suffix=" ms")
        self.judge_window.setRange(*whole_range(S.JUDGE_WINDOW_MS))
        self.judge_window.setValue(settings.get(S.JUDGE_WINDOW_MS))
        self.judge_window.setToolTip(tr("settings.judge_window_tip"))
        form.addRow(tr("settings.judge_window"), self.judge_window)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def test_tone(self) -> bool:
        """Play the test tone on the device and at the volume chosen here (not saved yet)."""
        book = self.voice_book
        book.use_audio(self.device.currentData(), self.volume.value())
        played = book.test_tone()
        player = book.player() if played else None
        if not played:
            self.tone_status.setText(tr("settings.tone_busy"))
        elif getattr(player, "silent", False):
            self.tone_status.setText(tr("settings.tone_silent", why=getattr(player, "status_message", "")))
        else:
            self.tone_status.setText(tr("settings.tone_played"))
        return played

    def reject(self) -> None:
        if self.voice_book is not None and hasattr(self.voice_book, "apply_audio_settings"):
            self.voice_book.apply_audio_settings()     # what was tried goes back to what is saved
        super().reject()

    def _seconds(self, key: S.Key) -> QDoubleSpinBox:
        # two decimals: the measured defaults (0.66 s, 0.80 s) are kept as they are, not rounded
        box = QDoubleSpinBox(decimals=2, singleStep=0.05, minimum=key.lo, maximum=key.hi)
        box.setValue(self.settings.get(key))
        return box

    def apply(self) -> None:
        """Write the chosen values (called after OK)."""
        s = self.settings
        s.set(S.LANGUAGE, self.language.currentData())
        s.set(S.MA, self.ma.value())
        s.set(S.PAUSE, self.pause.value())
        s.set(S.JOKA_GAP, self.joka_gap.value())
        s.set(S.OWN_PAUSES, self.own_pauses.isChecked())
        s.set(S.SPEED, self.speed.value())
        pitch_changed = s.get(S.PITCH) != self.pitch.value()
        s.set(S.PITCH, self.pitch.value())
        if pitch_changed and self.voice_book is not None and hasattr(self.voice_book, "forget"):
            self.voice_book.forget("synth")   # the synthesised voice reopens on the new tone
        s.set(S.VOICE, self.voice.currentData())
        s.set(S.JOKA, self.joka.isChecked())
        s.set(S.SHOW_KIMARIJI, self.kimariji.isChecked())
        s.set(S.KIMARIJI_SPELLING, self.spelling.currentData())
        s.set(S.DAKUTEN, self.dakuten.isChecked())
        s.set(S.MEMORISE_MIN, self.memorise.value())
        s.set(S.JUDGE_WINDOW_MS, self.judge_window.value())
        s.set(S.CARDS_PER_SIDE, self.cards_per_side.value())
        s.set(S.OUTPUT_DEVICE, self.device.currentData())
        s.set(S.VOLUME, self.volume.value())
        s.sync()
        if self.voice_book is not None and hasattr(self.voice_book, "apply_audio_settings"):
            self.voice_book.apply_audio_settings()
        LANG.set(self.language.currentData())
        SPELLING.set(self.spelling.currentData())
