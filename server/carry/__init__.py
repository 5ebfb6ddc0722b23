"""Carrying out: effects become writes to the store (the executor, the one ordered writer,
work retried until the store takes it), news to and from other nodes (the relay) and
timers (the ticker every 50 ms, the sweeper for the deployment, the clock check, the
store watch for /metrics). It decides nothing: what a write, a timer or news leaves to
decide is handed to the decider as an input (``server/handover/inputs.py``). No module
here imports a desk or a race's decision, not even through another module
(``tests/server/test_carrying_out_only_carries_out.py``)."""
