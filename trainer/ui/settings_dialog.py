"""The settings dialog: language, reading timing, voice, beginner aids, match options."""
from __future__ import annotations

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QSpinBox)

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


class SettingsDialog(QDialog):
    def __init__(self, settings: S.Settings, voices: list[str], parent=None):
        super().__init__(parent)
        self.settings = settings
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
        self.speed = QDoubleSpinBox(decimals=2, singleStep=0.05, minimum=S.SPEED.lo, maximum=S.SPEED.hi)
        self.speed.setValue(settings.get(S.SPEED))
        form.addRow(tr("settings.speed"), self.speed)

        self.voice = QComboBox()
        self.voice.addItem(tr("settings.voice_synth"), "synth")
        for name in voices:
            self.voice.addItem(name, name)
        k = self.voice.findData(settings.get(S.VOICE))
        self.voice.setCurrentIndex(max(0, k))
        form.addRow(tr("settings.voice"), self.voice)

        self.joka = QCheckBox(tr("settings.joka"))
        self.joka.setChecked(settings.get(S.JOKA))
        form.addRow(self.joka)
        self.kimariji = QCheckBox(tr("settings.kimariji"))
        self.kimariji.setChecked(settings.get(S.SHOW_KIMARIJI))
        form.addRow(self.kimariji)
        self.spelling = QComboBox()
        for code in S.KIMARIJI_SPELLING.choices:
            self.spelling.addItem(tr(f"settings.spelling_{code}"), code)
        self.spelling.setCurrentIndex(max(0, self.spelling.findData(settings.get(S.KIMARIJI_SPELLING))))
        form.addRow(tr("settings.spelling"), self.spelling)
        self.dakuten = QCheckBox(tr("settings.dakuten"))
        self.dakuten.setChecked(settings.get(S.DAKUTEN))
        form.addRow(self.dakuten)
        self.memorise = QSpinBox(minimum=int(S.MEMORISE_MIN.lo), maximum=int(S.MEMORISE_MIN.hi))
        self.memorise.setValue(settings.get(S.MEMORISE_MIN))
        form.addRow(tr("settings.memorise"), self.memorise)
        self.judge_window = QSpinBox(minimum=int(S.JUDGE_WINDOW_MS.lo), maximum=int(S.JUDGE_WINDOW_MS.hi),
                                     suffix=" ms")
        self.judge_window.setValue(settings.get(S.JUDGE_WINDOW_MS))
        self.judge_window.setToolTip(tr("settings.judge_window_tip"))
        form.addRow(tr("settings.judge_window"), self.judge_window)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _seconds(self, key: S.Key) -> QDoubleSpinBox:
        box = QDoubleSpinBox(decimals=1, singleStep=0.1, minimum=key.lo, maximum=key.hi)
        box.setValue(self.settings.get(key))
        return box

    def apply(self) -> None:
        """Write the chosen values (called after OK)."""
        s = self.settings
        s.set(S.LANGUAGE, self.language.currentData())
        s.set(S.MA, self.ma.value())
        s.set(S.PAUSE, self.pause.value())
        s.set(S.SPEED, self.speed.value())
        s.set(S.VOICE, self.voice.currentData())
        s.set(S.JOKA, self.joka.isChecked())
        s.set(S.SHOW_KIMARIJI, self.kimariji.isChecked())
        s.set(S.KIMARIJI_SPELLING, self.spelling.currentData())
        s.set(S.DAKUTEN, self.dakuten.isChecked())
        s.set(S.MEMORISE_MIN, self.memorise.value())
        s.set(S.JUDGE_WINDOW_MS, self.judge_window.value())
        s.sync()
        LANG.set(self.language.currentData())
        SPELLING.set(self.spelling.currentData())
