"""Every error the server, the client or a benchmark raises descends from one root, ``SolraceError``
(``protocol/errors.py``): a caller catches one class, and reads one ``code`` and one
``message`` whatever part failed."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import bench
import client
import protocol
import server
import solrace
from protocol.errors import SolraceError


def test_every_exception_class_of_the_code_descends_from_solrace_error() -> None:
    strays = []
    for package in (protocol, server, client, bench, solrace):
        for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(found.name)
            for name, value in vars(module).items():
                if (
                    inspect.isclass(value)
                    and issubclass(value, BaseException)
                    and value.__module__ == module.__name__
                    and not issubclass(value, SolraceError)
                ):
                    strays.append(f"{module.__name__}.{name}")
    assert strays == []


def test_a_store_error_and_a_refusal_of_the_server_carry_a_code_and_a_sentence() -> None:
    from client.api import ServerError
    from server.store import StoreUnavailable

    unavailable = StoreUnavailable("redis at 127.0.0.1:1 refused the connection")
    assert unavailable.code == "store_unavailable"
    assert unavailable.message == "redis at 127.0.0.1:1 refused the connection"
    refused = ServerError("race_full", "this race is full", "join_race")
    assert (refused.code, refused.message, refused.of) == (
        "race_full",
        "this race is full",
        "join_race",
    )
