"""Load generators and benchmarks (``solrace bench``): they drive real ``solrace serve``
processes through the player's library (``client``) and print figures; never timed tests.
The benchmarks of the server's own parts in one process (``storage``: the store's memory in
Redis; ``argon2``: password hashing) reach them through their public faces only
(``server.store``, ``server.desks.passwords``, ``server.config``) and read Redis's own figures
with ``redis-cli``; nothing here imports the server's internals or redis, and the server
imports nothing from here (``tests/server/test_server_boundary.py``). The one exception is
``redis-clients``, which compares the store's own wire client with redis-py and so lives
inside the store (``server/store/redis_clients_bench.py``), started from here."""
