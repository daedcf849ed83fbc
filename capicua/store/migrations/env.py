"""Alembic environment: uses the connection the server hands over
(``config.attributes["connection"]``), else the URL (``-x url=...`` or the ini)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from capicua.store.models import Base

config = context.config
target_metadata = Base.metadata


def _database_url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        # Without a URL create_engine would fail with an unhelpful TypeError.
        raise RuntimeError("no database to migrate: pass -x url=... or set sqlalchemy.url in the ini")
    return url


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(_database_url())
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


def run_migrations_offline() -> None:
    context.configure(url=_database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
