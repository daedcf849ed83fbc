"""The ports' implementations: the store's event log, the in-process bus and clock, the bot pool, honours."""
