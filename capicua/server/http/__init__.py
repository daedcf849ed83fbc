"""The HTTP routes: tables and guests, verify, replay, standings, static files, error pages."""
