"""How ``capicua serve`` logs: one line per record, with its time, level and
logger, and the table it is about where there is one; uvicorn's records in the
same format. Applied once, by uvicorn (:func:`log_config` is its ``log_config``).

Without it the ``capicua.*`` loggers had no handler: "table … resumed", "N idle
tables left memory" never appeared, and warnings printed bare, with no time or
level.

The table of a record: a table's task is named ``table-<id>`` (the shell runs
each table in one), and a websocket's task says its table in
:data:`current_table` once its hello is answered.

``--log-format json`` (:class:`JsonLines`): one JSON object per line with
``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``, ``table`` (or
null), ``process`` (this process's node id in the cluster) and ``pid``, plus
``exception`` (the traceback as text) when there is one: what a log collector
indexes without parsing lines.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s%(table)s: %(message)s"
ACCESS_FORMAT = '%(asctime)s %(levelname)s %(name)s: %(client_addr)s - "%(request_line)s" %(status_code)s'
TABLE_TASK_PREFIX = "table-"
LOG_FORMATS = ("text", "json")

# The table the running task serves (a websocket after its hello); None elsewhere.
current_table: ContextVar[str | None] = ContextVar("capicua_table", default=None)


def record_table() -> str | None:
    """The id of the table the code logging now runs for, if any."""
    table = current_table.get()
    if table is not None:
        return table
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not on the event loop: a writer thread, a worker
        return None
    name = task.get_name() if task is not None else ""
    return name[len(TABLE_TASK_PREFIX):] if name.startswith(TABLE_TASK_PREFIX) else None


class TableContext(logging.Filter):
    """Gives each record a ``table`` attribute: `` [t_…]``, or empty."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "table"):
            table = record_table()
            record.table = f" [{table}]" if table else ""
            record.table_id = table
        return True


class JsonLines(logging.Formatter):
    """One JSON object per record (``--log-format json``), uvicorn's access records included."""

    def __init__(self, node: str = "") -> None:
        super().__init__()
        self.node = node

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "table": getattr(record, "table_id", None),
            "process": self.node,
            "pid": os.getpid(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def log_config(level: str = "info", fmt: str = "text", node: str = "") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` dict: the ``capicua`` and ``uvicorn`` loggers at
    ``level`` (a uvicorn level name: ``trace`` is below ``debug``), to stderr, the access
    log to stdout, all with time and level; ``fmt`` ``json``: every record as one JSON
    object (:class:`JsonLines`, naming ``node``)."""
    from uvicorn.config import LOG_LEVELS

    number = LOG_LEVELS[level]
    formatters: dict[str, Any] = {
        "default": {"format": LOG_FORMAT},
        "access": {"()": "uvicorn.logging.AccessFormatter", "fmt": ACCESS_FORMAT, "use_colors": False},
    }
    if fmt == "json":
        formatters = {name: {"()": JsonLines, "node": node} for name in formatters}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"table": {"()": TableContext}},
        "formatters": formatters,
        "handlers": {
            "default": {"class": "logging.StreamHandler", "formatter": "default", "filters": ["table"],
                        "stream": "ext://sys.stderr"},
            "access": {"class": "logging.StreamHandler", "formatter": "access", "filters": ["table"],
                       "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "capicua": {"handlers": ["default"], "level": number, "propagate": False},
            "uvicorn": {"handlers": ["default"], "level": number, "propagate": False},
            "uvicorn.error": {"level": number},
            "uvicorn.access": {"handlers": ["access"], "level": number, "propagate": False},
        },
    }
