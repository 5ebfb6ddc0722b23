"""What people see of a race (``protocol.race.Race``): the public info, a racer's and a
spectator's views, the result and runs, the public log ``solrace verify`` checks. Pure
projections of the race's state: none changes it."""

from __future__ import annotations

from typing import Any

from protocol.engine import Rules
from protocol.history import GameState
from protocol.players import is_bot
from protocol.race import Ending, Race, view_json
from protocol.ranking import Run, ranked
from protocol.replay import replay


def race_runs(race: Race) -> list[Run]:
    """Every racer's run, in the total order of protocol/ranking.py."""
    runs = []
    for racer in race.racers.values():
        finished = racer.outcome is Ending.FINISHED
        runs.append(
            Run(
                player=racer.player,
                name=racer.name,
                race=race.id,
                game=race.settings.game,
                deal=race.settings.deal,
                finished=finished,
                time_ms=racer.time_ms if racer.time_ms is not None else racer.progress_ms,
                actions=racer.actions,
                progress=racer.progress,
                at_ms=(racer.done_at or 0) if finished else racer.progress_at,
            )
        )
    return ranked(runs)


def race_result(race: Race, today: str | None = None, arena_over: bool = False) -> dict[str, Any]:
    """The final ranking, best first, with each racer's outcome; the deal's
    commitment, and the deal number and nonce (in it and in each entry) only when
    ``deal_shown``, else null."""
    outcomes = {p: r.outcome and r.outcome.value for p, r in race.racers.items()}
    shown = race.deal_shown(today, arena_over)
    return {
        "race": race.id,
        "deal": str(race.settings.deal) if shown else None,
        "nonce": race.settings.nonce if shown else None,
        "commitment": race.commitment,
        "ranking": [
            {"rank": i + 1, **run_json(run, shown), "outcome": outcomes[run.player]}
            for i, run in enumerate(race_runs(race))
        ],
        **_history_lost(race),
    }


def _history_lost(race: Race) -> dict[str, Any]:
    """``history_lost: true`` when the store lost acknowledged actions of ``race``
    (never rated nor ranked); nothing otherwise."""
    return {"history_lost": True} if race.history_lost else {}


def public_log(race: Race, today: str | None = None, arena_over: bool = False) -> dict[str, Any]:
    """The race's public log (the ``race_log`` answer): its settings, the deal's
    commitment, every racer's actions with the server's times, and the result; the
    deal and nonce only when ``deal_shown`` (``protocol/verify.py`` checks it)."""
    settings, shown = race.settings, race.deal_shown(today, arena_over)
    return {
        "race": race.id,
        "mode": settings.mode,
        "game": settings.game,
        "options": settings.options,
        "day": settings.day,
        "scope": settings.scope(race.id),
        "commitment": race.commitment,
        "deal": str(settings.deal) if shown else None,
        "nonce": settings.nonce if shown else None,
        "start_at_ms": race.start_wall,
        "settings": settings.public_dict(),
        "racers": [
            {
                "player": racer.player,
                "name": racer.name,
                "bot": is_bot(racer.player),
                "outcome": racer.outcome and racer.outcome.value,
                "done_at": racer.done_at,
                "actions": [[e.seq, e.action, e.t_ms] for e in racer.log],
            }
            for racer in race.racers.values()
        ],
        "result": race_result(race, today, arena_over),
    }


def public_info(race: Race) -> dict[str, Any]:
    """The race as anyone may see it: settings, phase, racers' standings, the deal's
    commitment. No cards, and the deal number only when ``deal_shown``."""
    return {
        "race": race.id,
        **race.settings.public_dict(),
        "commitment": race.commitment,
        "deal": str(race.settings.deal) if race.deal_shown() else None,
        "host": race.host,
        "phase": race.phase.value,
        "start_at_ms": race.start_wall,
        "players": race.standings(),
        **_history_lost(race),
    }


def racer_view(race: Race, player: str) -> dict[str, Any]:
    """What ``player`` sees: the race, their own cards and legal actions, and only the
    standings of the others."""
    racer = race.racer(player)
    picture = public_info(race)
    picture["you"] = {"seq": racer.last_seq}
    if racer.state is not None:
        picture["you"].update(_cards(race.rules_of(player), racer.state))
    return picture


def spectator_view(
    race: Race, states: dict[str, GameState] | None = None, cards: bool = True
) -> dict[str, Any]:
    """What a spectator sees: the race, whether its boards are shown live
    (``boards_live``), and every racer's face-up cards (from ``states`` when given, e.g.
    the positions a spectator delay ago; none without ``cards``: progress only)."""
    picture = public_info(race)
    picture["boards_live"] = boards_live(race)
    if not cards:
        return picture
    for standing in picture["players"]:
        state = (states or {}).get(standing["player"]) or race.racers[standing["player"]].state
        if state is not None:
            standing["view"] = view_json(race.rules_of(standing["player"]).view(state))
    return picture


def boards_live(race: Race) -> bool:
    """Whether spectators see the racers' cards while the race runs. Not in a race that
    may count (``ranked``: a race the server paired, a ranked daily attempt): its racers
    share one deal, so a card one of them turns up may lie face down in another's
    position, and a spectator may be a racer's own second tab. Its spectators see
    progress only (``progress_only``) until its end, then every board (``final_boards``)."""
    return not race.settings.ranked


PROGRESS_FIELDS = ("player", "progress", "actions", "outcome", "time_ms")


def progress_only(kind: str, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A spectator feed item of a race whose boards are held (``boards_live``), as it may
    go out while the race runs: an ``act`` becomes ``progress`` (whose, cards home,
    actions, outcome, time: what racers see of each other), ``started`` loses its
    cards; the other kinds carry no card."""
    if kind == "act":
        return "progress", {key: data[key] for key in PROGRESS_FIELDS if key in data}
    if kind == "started":
        return kind, {}
    return kind, data


def final_boards(race: Race) -> dict[str, dict[str, Any]]:
    """Every racer's last face-up cards (a VIEW each), for the spectators of a race whose
    boards were held, once it is over."""
    return {
        player: view_json(race.rules_of(player).view(racer.state))
        for player, racer in race.racers.items()
        if racer.state is not None
    }


def state_after(race: Race, player: str, count: int) -> GameState:
    """``player``'s state after their first ``count`` accepted actions (replayed)."""
    actions = race.racer(player).log.actions()[:count]
    return replay(race.rules, race.settings.deal, actions)


def _cards(rules: Rules, state: GameState) -> dict[str, Any]:
    return {
        "view": view_json(rules.view(state)),
        "legal": [str(a) for a in rules.legal_actions(state)],
    }


def run_json(run: Run, deal_shown: bool) -> dict[str, Any]:
    """A run on the wire: its deal number only when it may be shown (else null)."""
    data = {**run.as_dict(), "bot": is_bot(run.player)}
    if not deal_shown:
        data["deal"] = None
    return data


def revealed_views(race: Race, today: str | None = None) -> dict[str, dict[str, Any]] | None:
    """Every racer's last cards, the face-down ones too, once the deal may be shown (anyone
    can deal it then, see ``Race.deal_shown``); None before."""
    if not race.deal_shown(today):
        return None
    return {
        player: {**racer.state.position.revealed_json(), "can_undo": False}
        for player, racer in race.racers.items()
        if racer.state is not None
    }
