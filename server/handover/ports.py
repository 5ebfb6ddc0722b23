"""Where deciding and carrying out meet, declared apart from both (neither imports the
other through here):

- ``Decider``: what the executor hands inputs to (``server/handover/inputs.py``) and gets effects
  back from (``server/desks/deciding.py`` is the one);
- ``Hands``: what the relay and the timers hand inputs to, to be decided and carried out
  (``server/carry/executor.py`` is the one);
- ``Outlet``: effects a decision cannot leave to the request that asked it, as the request
  may fail after it (a race adopted must be followed, whatever becomes of the request):
  carried out at once by whoever carries out (the executor plugs itself in as it is
  built).
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


class Carrier(Protocol):
    def run(self, effects: Effects) -> object:
        """Carry ``effects`` out."""
        ...


class Outlet:
    """Effects carried out at once, by the carrier plugged in (the executor's)."""

    def __init__(self) -> None:
        self.carrier: Carrier | None = None

    def carry_out(self, effects: Effects) -> None:
        """Carry ``effects`` out now (none: nothing to do)."""
        if effects:
            assert self.carrier is not None, "nothing carries effects out yet"
            self.carrier.run(effects)
