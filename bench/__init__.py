"""Load generators and benchmarks (``solrace bench``): they drive real ``solrace serve``
processes through the player's library (``client``) and print figures; never timed tests.
Benchmarks of the server's own parts in one process (the store, password hashing) are in
``server/bench/``, the only place beside ``server/`` that may reach its internals."""
