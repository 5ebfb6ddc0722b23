"""The races decide too: the races this node follows and the one atomic step by which a
race changes (``followed.py``), the race requests and the act hot path (``race_desk.py``),
a race kept in step with its stored logs and read back from the store (``log_sync.py``,
``read_back.py``), what a race's changes tell (``announcements.py``) and what its end leaves
(``results.py``, ``rating.py``, with fair-play reviews and the standing ranked play asks:
``fairplay.py``, ``standing.py``). Each returns effects; the race's rules and policy are
the pure ``protocol.race.Race``'s. Nothing that carries out imports a module here."""
