"""Benchmarks of the server's own parts in this process (``solrace bench storage`` and
``solrace bench argon2``), kept inside ``server/`` because they measure its internals."""
