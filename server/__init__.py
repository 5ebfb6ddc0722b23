"""The race server, in rooms by role (docs/server.md, "The code's shape"):

- ``edge/``: sockets and answers: connections, a player's line, the gateway, HTTP;
- ``desks/`` and ``races/``: what decides: requests and inputs answered with effects;
- ``carry/``: what carries the effects out: the executor, the writer, the relay, timers;
- ``state/``: what this node holds (races here, players' sessions), both sides use it;
- ``handover/``: what the two sides hand each other (effects, inputs, ports, jobs);
- ``store/``: the storage interface and its two implementations (memory, Redis);
- at the top: ``app.py`` builds and runs a node, ``duties.py`` its lease-held work,
  ``command.py`` is ``solrace serve`` (options, config, option checks), logs and metrics.
"""
