"""The terminal client: ``solrace play``, ``solrace watch`` and ``solrace board``.

Drawing is done with ``rich``: coloured cards, tables and live refresh on a terminal, plain
text when standard output is not one (pipes, files, tests). Input is plain lines, read in
a thread so that events keep arriving while the player types.
"""
