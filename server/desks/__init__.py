"""The desks decide: each answers a request (sessions, accounts, spectating, the daily
challenge, pairing, challenges, profiles, the moderators' admin) with its answer and typed
effects (``server/handover/effects.py``), and the decider (``deciding.py``) answers what
carrying out hands back (``server/handover/inputs.py``) the same way. The request table
says which desk answers which request. A desk never sees a connection and never carries
anything out itself; nothing in ``server/carry/`` or ``server/state/`` imports a desk."""
