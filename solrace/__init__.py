"""The ``solrace`` command (``solrace/cli.py``): one launcher for the server (``solrace
serve``), the player's tools (``client/``) and the benchmarks (``bench/``), each subcommand
loaded by its module's name. It lives apart from ``client/``, which is what a player runs."""
