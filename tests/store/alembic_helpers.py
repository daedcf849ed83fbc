"""Alembic by hand for the migration tests: the newest revision, the revision a
database is at, and a downgrade (the product only ever upgrades: :meth:`Store.migrate`)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text

from capicua.store import MIGRATIONS, Store


def alembic_config(url: str | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def revision_of(store: Store) -> str:
    with store.engine.connect() as conn:
        return str(conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one())


def downgrade(store: Store, revision: str) -> None:
    """``alembic downgrade <revision>`` on the store's database, in one transaction as
    :meth:`Store.migrate` runs an upgrade."""
    cfg = alembic_config(store.url)
    with store.engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # as Store.migrate: the write lock before the version is read
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)
