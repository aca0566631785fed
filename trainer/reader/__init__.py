"""The reader's own model, without Qt: a reading session (order, karafuda, timing, kept on disk).

`karuta read` and the app's reader, match, Mubeyama and drills all read from
it; it lives outside `trainer.ui` so that the command line never imports the
interface package.
"""
