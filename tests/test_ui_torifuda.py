"""Torifuda drawing: the block layout of the kana and the card image."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

import poems  # noqa: E402
from trainer.ui.torifuda import strip_dakuten, torifuda_columns, torifuda_pixmap  # noqa: E402


def test_fourteen_kana_are_laid_out_five_five_four_right_to_left():
    assert torifuda_columns(poems.get(1).shimo_kana) == ["わかころも", "てはつゆに", "ぬれつつ"]


@pytest.mark.parametrize("length, sizes", [(14, [5, 5, 4]), (15, [5, 5, 5]), (16, [6, 5, 5])])
def test_ji_amari_fills_the_columns_longest_first(length, sizes):
    poem = next(p for p in poems.ALL if len("".join(p.shimo_kana)) == length)
    assert [len(c) for c in torifuda_columns(poem.shimo_kana)] == sizes


def test_every_card_keeps_its_whole_shimo_no_ku_in_order():
    for p in poems.ALL:
        text = "".join(p.shimo_kana)
        assert "".join(torifuda_columns(p.shimo_kana, dakuten=True)) == text
        assert "".join(torifuda_columns(p.shimo_kana)) == strip_dakuten(text)


def test_cards_are_printed_without_dakuten_unless_asked():
    assert strip_dakuten("わがころもでは") == "わかころもては"
    assert strip_dakuten("ぱぴぷ") == "はひふ"
    assert torifuda_columns(("わがころもでは", "つゆにぬれつつ"), dakuten=True)[0] == "わがころも"


def test_the_opponents_card_is_the_same_image_turned_round(qtbot):
    columns = torifuda_columns(poems.get(2).shimo_kana)
    upright = torifuda_pixmap(columns, 104).toImage()
    turned = torifuda_pixmap(columns, 104, upside_down=True).toImage()
    assert upright.size() == turned.size()
    assert upright != turned
    from PySide6.QtGui import QTransform
    back = turned.transformed(QTransform().rotate(180))
    # Antialiasing may differ by a level or two at edges; compare a sample of pixels.
    diffs = 0
    for x in range(0, upright.width(), 7):
        for y in range(0, upright.height(), 7):
            a, b = upright.pixelColor(x, y), back.pixelColor(x, y)
            if abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) > 60:
                diffs += 1
    assert diffs < 10


def test_the_kimariji_has_a_strip_of_its_own_and_never_covers_the_text():
    from PySide6.QtCore import QRectF

    from trainer.ui.torifuda import torifuda_layout
    for width in (40, 70, 104):
        face = QRectF(0, 0, width, width / 52 * 73)
        for p in poems.ALL:
            columns = torifuda_columns(p.shimo_kana)
            bare = torifuda_layout(face, columns)
            shown = torifuda_layout(face, columns, p.kimariji)
            assert not bare.kimariji_cells
            assert len(shown.kimariji_cells) == len(p.kimariji)
            text = [c for col in shown.cells for c in col]
            assert [len(col) for col in shown.cells] == [len(c) for c in columns]
            for k in shown.kimariji_cells:
                assert face.contains(k)
                overlap = [k.intersected(c) for c in text]
                assert all(o.width() * o.height() < 1e-6 for o in overlap)   # edges may touch
            assert all(face.contains(c) for c in text)
            assert shown.kana_px >= 0.75 * bare.kana_px     # the text stays readable


@pytest.mark.parametrize("width", [19, 30])
def test_a_card_too_small_for_its_whole_text_shows_its_beginning_readably(width):
    """Mubeyama's 100 cards at 1024×700 are ~22 px wide: with `legible_px` each shows the start
    of its shimo-no-ku at a readable size rather than all fourteen kana at 4-6 px."""
    from PySide6.QtCore import QRectF

    from trainer.ui.torifuda import torifuda_layout
    face = QRectF(0, 0, width, width / 52 * 73)
    for p in poems.ALL:
        columns = torifuda_columns(p.shimo_kana)
        full = torifuda_layout(face, columns)
        lead = torifuda_layout(face, columns, p.kimariji, legible_px=10)
        assert full.kana_px < 10 <= lead.kana_px
        shown = "".join(lead.columns)
        assert shown and "".join(columns).startswith(shown)
        assert [len(c) for c in lead.cells] == [len(c) for c in lead.columns]
        assert all(face.contains(c) for col in lead.cells for c in col)


def test_a_card_large_enough_keeps_its_whole_text_whatever_legible_px_says():
    from PySide6.QtCore import QRectF

    from trainer.ui.torifuda import torifuda_layout
    face = QRectF(0, 0, 70, 70 / 52 * 73)
    for p in poems.ALL[:10]:
        columns = torifuda_columns(p.shimo_kana)
        assert torifuda_layout(face, columns, legible_px=10) == torifuda_layout(face, columns)
