"""The HTTP routes, one module per family (tables, guests, catalogue, health, verify,
replay, analysis, standings, static), each giving ``routes(deps)`` over the one
:class:`~capicua.server.http.deps.Deps`; a refusal is an
:class:`~capicua.server.http.errors.HttpError` (:mod:`capicua.server.routes` lists them)."""
