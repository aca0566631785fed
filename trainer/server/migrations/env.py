"""Alembic's environment for the server's database (run by `trainer.server.store.migrate`).

The server hands its own connection in ``config.attributes["connection"]``, so
migrations run in-process at start, on SQLite or PostgreSQL alike."""
from __future__ import annotations

from alembic import context

from trainer.server.store import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
