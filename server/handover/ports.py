"""Where deciding and carrying out meet, declared apart from both (neither imports the
other through here):

- ``Decider``: what the executor hands inputs to (``server/handover/inputs.py``) and gets effects
  back from (``server/desks/deciding.py`` is the one);
- ``Hands``: what the relay and the timers hand inputs to, to be decided and carried out
  (``server/carry/executor.py`` is the one);
- ``Owed``: effects a decision owes whatever becomes of the request that asked it, as the
  request may fail after it (a race adopted must be followed; what a failed step absorbed
  from another node must be told): the deciding side adds them, the carrying-out side takes
  them before it carries out anything else and when a request fails. Data, not a call:
  nothing decided calls carrying out back.
"""

from __future__ import annotations

from typing import Protocol

from server.handover.effects import Effects
from server.handover.inputs import Input, ReadingInput


class Decider(Protocol):
    def decide(self, given: Input) -> Effects:
        """What ``given`` leaves to do, decided at once."""
        ...

    async def decide_reading(self, given: ReadingInput) -> Effects:
        """What ``given`` leaves to do, decided after reading the store (StoreError while
        the store is out: nothing changed but what the effects say)."""
        ...


class Hands(Protocol):
    def hand(self, given: Input) -> None:
        """Decide ``given`` and carry out what it leaves to do."""
        ...

    async def hand_reading(self, given: ReadingInput) -> None:
        """Decide ``given`` after reading the store, and carry out what it leaves to do."""
        ...


class Owed:
    """Effects owed whatever becomes of the request that made them, in the order added."""

    def __init__(self) -> None:
        self.effects: Effects = []

    def add(self, effects: Effects) -> None:
        self.effects += effects

    def take(self) -> Effects:
        """What is owed, now no longer (the taker carries it out)."""
        taken, self.effects = self.effects, []
        return taken
