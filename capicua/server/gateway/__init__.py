"""The socket tier: websockets, identity, limits and safe JSON. It speaks to tables through capicua.table.protocol only."""
