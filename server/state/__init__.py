"""What this node holds in memory, read and changed by both sides: the races on this node
(``rooms.py``: the pure ``Race`` and its spectators, feed, timers) and who each player is
(``sessions.py``: their resume token and numbered events, never their socket), and what a
connection has told of who asks (``askers.py``: address, device, token lineage). Neither
decides, nor imports anything that does."""
