"""The server: HTTP + websocket app, tables as actors, guest tokens."""
