"""The game server: `karuta serve` (a lobby, tables, seats, CPU fill-ins) and `karuta bot`.

Nothing else in ``trainer`` imports this package; it imports the pure layers
(``trainer.games``, ``trainer.rules``, ``trainer.players``) and plays the very
sessions the app and `karuta simulate` play. The protocol is documented in
``docs/server-protocol.md``.

- `codec`: cards, actions, views and events as JSON;
- `adapter`: the one place that knows how today's sessions are driven;
- `store`: the database (SQLAlchemy Core, Alembic migrations in `migrations/`);
- `tables`: a live table (session, seats, action log replayed, its logical clock);
- `messages`: every client message checked (size, depth, fields, types);
- `app`: the Starlette application (WebSocket endpoint, lobby, limits, seat hold);
- `cluster` and `bus`: several processes on one PostgreSQL (heartbeat, table
  owners, LISTEN/NOTIFY notes);
- `bot`: the headless bot client.
"""
