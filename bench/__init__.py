"""Load generators and benchmarks (``solrace bench``): they drive real ``solrace serve``
processes through the player's library (``client``) and print figures; never timed tests.
Benchmarks of the server's own parts in one process (the Redis store, password hashing)
are in ``server/`` (``server/store/redis_bench.py``, ``server/bench/``): nothing here
imports the server's internals or redis (``tests/server/test_server_boundary.py``)."""
