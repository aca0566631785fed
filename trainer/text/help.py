"""Interface text of the first run, the guide, Help → About and File → Import recordings.

Merged into `trainer.text.messages.MESSAGES` at import, like the modes' own tables.
"""
from __future__ import annotations

from trainer.text.messages import add_messages

# id: (日本語, English)
TEXT: dict[str, tuple[str, str]] = {
    "menu.help": ("ヘルプ", "&Help"),
    "action.guide": ("使い方ガイド…", "Guide to the modes…"),
    "action.about": ("このアプリについて…", "About Karuta Trainer…"),
    "action.import": ("録音を取り込む…", "Import recordings…"),
    "common.close": ("閉じる", "Close"),
    # -- first run -------------------------------------------------------------------------------
    "welcome.title": ("ようこそ", "Welcome"),
    "welcome.heading": ("競技かるたの読手・審判・練習アプリへようこそ",
                        "Welcome to the kyōgi karuta reader, judge and trainer"),
    "welcome.language": ("表示言語", "Language of the interface"),
    "welcome.voice": ("読み上げる声", "The voice that reads"),
    "welcome.voice_synth": ("合成音声（このパソコンで作り、読みながら用意します）",
                            "The synthesised voice (made on this computer as it first reads)"),
    "welcome.voice_import": ("自分の録音を取り込む（一首一ファイルのフォルダ）",
                             "Import my own recordings (a folder, one file per poem)"),
    "welcome.later": ("あとで、メニューの「ファイル → 録音を取り込む…」「ヘルプ」からいつでも変えられます。",
                      "You can change these later: File → Import recordings…, Settings, and Help."),
    "welcome.start": ("始める", "Start"),
    # -- guide -----------------------------------------------------------------------------------
    "guide.title": ("使い方ガイド", "Guide to the modes"),
    "guide.skip": ("スキップ", "Skip"),
    "guide.back": ("戻る", "Back"),
    "guide.next": ("次へ", "Next"),
    "guide.done": ("はじめる", "Let's play"),
    "guide.page": ("{n} / {total}", "{n} / {total}"),
    "guide.reader.title": ("読手 — 実際の畳で遊ぶ会のために", "Reader — for clubs playing on a real floor"),
    "guide.reader.body": (
        "序歌から百首を専任読手のように読み上げます。上の句、間、下の句、余韻まで。<br>"
        "<b>Enter</b> 読み始め　<b>スペース</b> 一時停止／再開　<b>W</b> 待った　"
        "<b>R</b> 下の句をもう一度　<b>N</b> 次の札へ　<b>Esc</b> やめる<br>"
        "読みは一枚ごとに保存され、次に開いたときに続きから読めます。",
        "Reads the 100 poems from the joka as an official reader does: kami-no-ku, pause, "
        "shimo-no-ku held to its end, the ma.<br>"
        "<b>Return</b> start　<b>Space</b> pause/resume　<b>W</b> wait (待った)　"
        "<b>R</b> repeat the shimo-no-ku　<b>N</b> skip　<b>Esc</b> stop<br>"
        "The session is saved after every card and offered again at the next start."),
    "guide.match.title": ("対戦 — CPU と一対一", "Match — one against the CPU"),
    "guide.match.body": (
        "25 枚ずつ配り、暗記時間のあと読みが始まります。札をクリックして取り、"
        "送り札も自分で選びます。お手つきやダブは規則どおりに審判します。<br>"
        "一枚ごとに、決まり字が聞こえた瞬間からの反応時間をミリ秒で表示します。"
        "相手の強さは「対戦」タブ上部の欄で、初心者（E級）から名人級まで選べます（試合の前に）。",
        "25 cards each, a memorisation time, then the reading. Click a card to take it and "
        "choose the okurifuda yourself; faults and double faults are judged by the rules.<br>"
        "After every card: your reaction time in milliseconds from the moment the kimariji "
        "sounded. The opponent's strength, from beginner (E class) to top, is chosen in the box "
        "at the top of the Match tab, before a match."),
    "guide.drills.title": ("練習 — 決まり字と反応", "Drills — kimariji and reflexes"),
    "guide.drills.body": (
        "上の句を聞いて取り札を選ぶ、札流し、位置の暗記などの練習です。"
        "苦手な札ほど多く出題されます。<br>"
        "「統計」では札ごとの反応時間と正答率、その推移を見られます。",
        "Hear a kami-no-ku and pick its torifuda, fuda-nagashi, positions to memorise. "
        "The cards you miss come back more often.<br>"
        "Statistics shows every card's reaction times and accuracy, and how they change."),
    "guide.games.title": ("遊び — むべ山、うんすん、よみ、梅ぼたん、坊主めくり",
                          "Games — Mubeyama, Unsun, Yomi, Ume Botan, Bōzu-mekuri"),
    "guide.games.body": (
        "「遊び」タブには百人一首と昔の札で遊ぶほかのゲームが並びます。上の小さなタブでゲームを選び、"
        "人数や CPU の強さを決めて「新しいゲーム」。むべ山かるたは読手が読み、札を返す速さを秒で測ります。<br>"
        "出せる札だけが縁取られ、出せない札をクリックすると理由が出ます。得点表と記録は右側にあります。",
        "The Games tab holds the other games of the cards: pick one in the small tabs at its top, "
        "choose the players and the CPU's strength, then New game. In Mubeyama karuta the reader "
        "reads and your flips are timed in seconds.<br>"
        "Only the cards you may play are outlined; clicking another says why not. The score sheet "
        "and the log are on the right."),
    "guide.stats.title": ("統計 — 苦手な札が見える", "Statistics — see which cards you miss"),
    "guide.stats.body": (
        "対戦、練習、むべ山のすべての札の記録です。百首の表は苦手なほど赤く、"
        "クリックでその札の反応時間、ダブルクリックでその札の履歴を開きます。<br>"
        "上の「種類」で対戦や練習ごとに絞り込み、「CSV に書き出す…」で表計算ソフトへ持ち出せます。",
        "Every card of every match, drill and Mubeyama game. The 100-card grid is redder for "
        "the cards you miss; click a card for its reaction times, double-click for its history.<br>"
        "Kind at the top narrows it to matches or one drill; Export CSV… takes it all to a spreadsheet."),
    "guide.voice.title": ("声 — 合成音声か自分の録音か", "The voice — synthesised or your own"),
    "guide.voice.body": (
        "最初は合成音声で読みます（このパソコンで一度だけ作ります）。"
        "読手の録音を持っていれば「ファイル → 録音を取り込む…」でフォルダごと取り込めます。"
        "ファイル名に歌番号を入れてください（001.wav、上の句_017.wav と 下の句_017.wav、序歌は 序歌.*）。<br>"
        "声、間、速さ、言語は「設定」で変えられます。このガイドは「ヘルプ」からいつでも開けます。",
        "At first a synthesised voice reads (made once, on this computer). If you have "
        "recordings of a reader, File → Import recordings… takes a whole folder. Each file's "
        "name must carry the poem number (001.wav, kami_017.flac + shimo_017.flac, joka.* for the joka).<br>"
        "Voice, ma, speed and language are in Settings. This guide is always in the Help menu."),
    # -- about -----------------------------------------------------------------------------------
    "about.title": ("このアプリについて", "About Karuta Trainer"),
    "about.version": ("バージョン {version}", "Version {version}"),
    "about.summary": ("競技かるた（百人一首）の読手・審判・練習アプリ。MIT ライセンス。",
                      "Reader, judge and trainer for kyōgi karuta (competitive Hyakunin Isshu). MIT licence."),
    "about.data": ("データの保存場所", "Where your data lives"),
    "about.data_dir": ("録音・統計・読みの記録", "Recordings, statistics, sessions"),
    "about.cache_dir": ("合成音声のキャッシュ", "Synthesised voice (cache)"),
    "about.settings_file": ("設定", "Settings"),
    "about.open_data": ("フォルダを開く", "Open the folder"),
    "about.components": ("同梱しているソフトウェアとライセンス", "Bundled components and their licences"),
    "about.component": ("名前", "Component"),
    "about.licence": ("ライセンス", "Licence"),
    "about.use": ("用途", "Used for"),
    "about.licence_files": ("ライセンス全文: {path}", "Full licence texts: {path}"),
    # -- import ----------------------------------------------------------------------------------
    "import.title": ("録音を取り込む", "Import recordings"),
    "import.intro": (
        "読手の録音のフォルダを声として取り込みます。ファイル名に歌番号を入れてください"
        "（001.wav、歌1.mp3、上の句_017.wav と 下の句_017.wav、序歌は 序歌.* か 000.*）。"
        "ファイルは読むだけで、移動も変更もしません。",
        "A folder of a reader's recordings becomes a voice. Each file's name must carry the "
        "poem number (001.wav, poem 1.mp3, kami_017.flac + shimo_017.flac; joka.* or 000.* for "
        "the joka). Your files are only read, never moved or changed."),
    "import.folder": ("フォルダ", "Folder"),
    "import.browse": ("選ぶ…", "Browse…"),
    "import.name": ("声の名前", "Name of the voice"),
    "import.start": ("取り込む", "Import"),
    "import.use": ("取り込んだ声で読む", "Read with this voice"),
    "import.running": ("取り込み中… {done} / {total}", "Importing… {done} / {total}"),
    "import.done": ("{n} 首を取り込みました（声「{name}」は {stored} 首）",
                    "Imported {n} poems (voice “{name}” now holds {stored})"),
    "import.none": ("取り込めた歌はありません。下の一覧を見てください。",
                    "Nothing was imported: see the list below."),
    "import.cancelled": ("中止しました。取り込み済みの歌は残っています。",
                         "Cancelled; the poems already imported stay."),
    "import.failed": ("取り込めません: {err}", "Could not import: {err}"),
    "import.not_folder": ("フォルダを選んでください", "Choose a folder"),
    "import.choose": ("録音のフォルダを選ぶ", "Choose the folder of recordings"),
}

add_messages(TEXT)

# What each shipped component does here (Help → About, trainer.ui.about.COMPONENTS)
add_messages({
    "about.use.window": ("画面", "window, widgets"),
    "about.use.runtime": ("実行環境（単体版）", "runtime (standalone build)"),
    "about.use.analysis": ("音声の解析", "audio analysis"),
    "about.use.voice": ("合成音声", "synthesised voice"),
    "about.use.output": ("音声出力", "sound output"),
    "about.use.files": ("音声ファイル", "audio files"),
    "about.use.resampling": ("サンプリング周波数の変換", "resampling"),
    "about.use.charts": ("統計のグラフ", "statistics charts"),
    "about.use.srs": ("練習の出題間隔", "spaced repetition of the drills"),
    "about.use.data_dirs": ("データの保存場所", "where user data lives"),
    "about.use.server": ("対戦サーバー（karuta serve / bot）", "game server (karuta serve, karuta bot)"),
    "about.use.fonts": ("日本語の文字（単体版）", "Japanese text (standalone build)"),
    "about.use.system": ("OS のライブラリ（単体版: 音声・画面・暗号など）",
                         "the operating system's libraries (standalone build: sound, display, crypto ...)"),
})

# Components whose row says more than a name, as Help → About shows them (the English is
# trainer.ui.about.COMPONENTS' own, which the packaging test compares with the build's licences).
add_messages({
    "about.name.shiboken6": ("shiboken6（PySide6 の実行部）", "shiboken6 (PySide6's runtime)"),
    "about.name.icu": ("ICU（Qt の中の Unicode 文字処理。licenses/icu）",
                       "ICU (Unicode text support inside Qt; licenses/icu)"),
    "about.name.pyloudnorm": ("pyloudnorm（ITU-R BS.1770 のラウドネス）", "pyloudnorm (ITU-R BS.1770 loudness)"),
    "about.name.jtalk_dic": ("Open JTalk の辞書（NAIST-jdic）", "Open JTalk dictionary (NAIST-jdic)"),
    "about.name.mei": ("HTS の声「Mei」（MMDAgent）", "HTS voice \u201cMei\u201d (MMDAgent)"),
    "about.name.sudachi": ("SudachiPy（pyopenjtalk-plus が読み込む。辞書は含まない）",
                           "SudachiPy (imported by pyopenjtalk-plus; its dictionary is left out)"),
    "about.name.pydantic": ("pydantic, pydantic_core, annotated-types, typing-inspection"
                            "（pyopenjtalk-plus が読み込む）",
                            "pydantic, pydantic_core, annotated-types, typing-inspection "
                            "(imported by pyopenjtalk-plus)"),
    "about.name.cffi": ("cffi, pycparser（python-sounddevice と python-soundfile が使う）",
                        "cffi, pycparser (used by python-sounddevice and python-soundfile)"),
    "about.name.argon2": ("argon2-cffi, argon2-cffi-bindings（パスワードのハッシュ）",
                          "argon2-cffi, argon2-cffi-bindings (password hashes)"),
    "about.name.openskill": ("openskill（競技かるたのレーティング: Weng-Lin）", "openskill (kyōgi ratings: Weng-Lin)"),
    "about.name.psycopg": ("psycopg（PostgreSQL: 追加の 'postgresql' を入れたときだけ。単体版には含まない）",
                           "psycopg (PostgreSQL: the optional 'postgresql' extra, not in the standalone build)"),
    "about.name.debian": ("Debian のシステムライブラリ（licenses/debian、licenses/SOURCES.txt）",
                          "System libraries from Debian (licenses/debian, licenses/SOURCES.txt)"),
    "about.licence.icu": ("ICU / Unicode のライセンス", "ICU / Unicode licence"),
    "about.licence.each": ("それぞれのライセンス（GPL、LGPL、MIT、BSD など）",
                           "each its own (GPL, LGPL, MIT, BSD ...)"),
})
