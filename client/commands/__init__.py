"""The subcommands of ``solrace``: each module has ``configure(parser)`` and ``run(args)``."""
