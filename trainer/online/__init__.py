"""The app's side of the game server (`karuta serve`): a connection and the tables it plays. No Qt.

- `client`: one WebSocket connection in a worker thread (protocol 1 of
  ``docs/server-protocol.md``), reconnecting with the session token;
- `table`: a table as one member sees it, built from the server's frames and
  decoded with the server's own codec, with the face of a turn session the
  app's table panels already draw (views draw, the server decides).

The Qt tab is `trainer.ui.online_panel`.
"""
