"""Screenshots of the Online tab for docs/screenshots and review.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python tools/online_screenshots.py OUT_DIR [WxH]

Starts a game server (uvicorn in a thread, a SQLite file in a temporary
folder), lets two other people open tables, signs in from the tab in a window
with a status bar, and grabs, in both languages: the lobby, a table of each
game mid-game (Unsun, Yomi, Ume Botan; the person's moves clicked through the
table as a person would, CPUs in the other seats) and the table after the
server stopped (the status line and the status bar say so; the table waits).
OUT_DIR/online-<what>-<lang>.png.
"""
from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from PySide6.QtWidgets import QApplication, QMainWindow

import trainer.ui  # noqa: F401  (PySide6 workaround first)
from trainer.ui.i18n import LANG


class Server:
    def __init__(self, db: str, port: int):
        self.db, self.port, self.server, self.thread = db, port, None, None
        self.url = f"ws://127.0.0.1:{port}/ws"

    def start(self) -> None:
        import uvicorn

        from trainer.server.app import Hub, ServerConfig, create_app
        self.server = uvicorn.Server(uvicorn.Config(create_app(hub=Hub(ServerConfig(db=self.db))),
                                                    host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)


def others_open_tables(url: str) -> None:
    """Two people with accounts open public tables (the lobby is not empty)."""
    import json

    import websockets

    async def person(name: str, tables: list[dict[str, Any]]) -> None:
        async with websockets.connect(url) as ws:
            for k, msg in enumerate([{"type": "hello", "version": 1},
                                     {"type": "sign_up", "name": name, "password": "karuta-club-1"},
                                     *({"type": "create_table", **t} for t in tables)]):
                await ws.send(json.dumps({**msg, "id": k + 1}))
                while json.loads(await ws.recv()).get("id") != k + 1:
                    pass

    async def go() -> None:
        await person("hanako", [{"game": "yomi", "seats": 4}, {"game": "umebotan", "seats": 3}])
        await person("taro", [{"game": "unsun"}, {"game": "yomi37"}])
    asyncio.run(go())


def wait(app: QApplication, done: Callable[[], bool], seconds: float = 15) -> None:
    end = time.monotonic() + seconds
    while not done():
        if time.monotonic() > end:
            raise RuntimeError("timed out")
        app.processEvents()
        time.sleep(0.005)


def clicks_for(game: str, action: Any, legal: list[Any]) -> list[Any]:
    from trainer.rules import umebotan, unsun, yomi
    if game == "unsun":
        if isinstance(action, unsun.Robau):
            return ["robau"]
        if isinstance(action, unsun.HideRobai):
            return ["hide"]
        return [action.card]
    if game in ("yomi", "yomi37"):
        return ["pass"] if isinstance(action, yomi.Pass) else [action.card]
    if isinstance(action, umebotan.Take):
        return [("field", action.target)]
    same = [a for a in legal if isinstance(a, umebotan.Play) and a.card == action.card]
    return [("hand", action.card)] if len(same) == 1 else [("hand", action.card), ("field", action.target)]


def play(app: QApplication, tab: Any, moves: int) -> None:
    remote = tab.remote
    for _ in range(moves):
        wait(app, lambda: remote.is_over() or bool(remote.waiting_for()))
        if remote.is_over():
            return
        legal = list(remote.legal())
        seq = remote.seq
        for item in clicks_for(remote.game, legal[len(legal) // 2], legal):
            tab.game_panel.table.clicked.emit(remote.seat, item, 0.0)
        wait(app, lambda seq=seq: remote.seq != seq or remote.is_over())
    wait(app, lambda: remote.is_over() or bool(remote.waiting_for()))
    for _ in range(50):
        app.processEvents()


def shot(app: QApplication, window: QMainWindow, path: Path) -> None:
    for _ in range(50):
        app.processEvents()
    window.grab().save(str(path))
    print(path)


def shots_in(app: QApplication, server: Server, lang: str, me: str, out: Path, size: tuple[int, int]) -> None:
    """Every shot in one language, as `me` (a new account)."""
    from trainer.ui.online_panel import LOBBY, TABLE, OnlinePanel
    LANG.set(lang)
    window = QMainWindow()
    tab = OnlinePanel(None)
    window.setCentralWidget(tab)
    window.resize(*size)
    window.show()
    tab.server_edit.setText(server.url)
    tab.name_edit.setText(me)
    tab.password_edit.setText("karuta-club-1")
    tab.sign_up_button.click()
    wait(app, lambda: tab.pages.currentIndex() == LOBBY and tab.table_list.rowCount() >= 4)
    tab.table_list.selectRow(0)
    shot(app, window, out / f"online-lobby-{lang}.png")
    for game, seats, length, moves in (("unsun", 8, 8, 5), ("yomi", 4, 3, 4), ("umebotan", 4, 2, 6)):
        tab.kind_box.setCurrentIndex(tab.kind_box.findData(f"{game}/standard"))
        tab.seats_box.setCurrentIndex(tab.seats_box.findData(seats))
        tab.length_spin.setValue(length)
        tab.create_button.click()
        wait(app, lambda: tab.pages.currentIndex() == TABLE and tab.remote is not None)
        if game == "umebotan":
            shot(app, window, out / f"online-open-table-{lang}.png")
        tab.start_button.click()
        wait(app, lambda: tab.remote.started and all(tab.remote.summary["seats"]))
        play(app, tab, moves)
        shot(app, window, out / f"online-{game}-{lang}.png")
        if game != "umebotan":
            tab.leave_button.click()
            wait(app, lambda: tab.pages.currentIndex() == LOBBY)
    server.stop()
    wait(app, lambda: tab.conn is not None and tab.conn.state == "lost")
    shot(app, window, out / f"online-dropped-{lang}.png")
    server.start()
    wait(app, lambda: tab.conn is not None and tab.conn.state == "online" and bool(tab.remote.waiting_for()), 30)
    tab.shutdown()
    window.close()


def main(argv: list[str]) -> int:
    from tests.server_fixtures import free_port
    out = Path(argv[0] if argv else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    size = tuple(int(x) for x in argv[1].split("x")) if len(argv) > 1 else (1024, 700)
    app = QApplication.instance() or QApplication([])
    folder = tempfile.TemporaryDirectory()
    server = Server(f"sqlite:///{folder.name}/server.sqlite", free_port())
    server.start()
    others_open_tables(server.url)
    try:
        for lang, me in (("en", "kaede"), ("ja", "sakura")):
            shots_in(app, server, lang, me, out, (size[0], size[1]))
    finally:
        server.stop()
        folder.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
