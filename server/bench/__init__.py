"""Benchmarks of the server's own parts in this process (``solrace bench argon2``; the
store's, ``solrace bench storage``, is ``server/store/redis_bench.py``), kept inside
``server/`` because they measure its internals."""
