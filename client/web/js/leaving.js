// Leaving races I am in. An open race is left (`leave_race`). A race under way in which I
// still play is resigned (`resign`), and only once the player has said yes. A race I am
// done with needs nothing. The requests go out at once, so the server has them before
// anything the page asks next.

export const LEAVE_QUESTION = "Leave this race? You will resign.";

/** True when `race` is counting down or running and I race in it without an outcome. */
export function stillPlaying(race, me) {
  if (race.phase !== "countdown" && race.phase !== "running") return false;
  const mine = race.players.find((p) => p.player === me);
  return Boolean(mine) && !mine.outcome;
}

/** The request that takes me out of `race`, or null when there is nothing to leave. */
export function leaveRequest(race, me) {
  if (race.phase === "open") return "leave_race";
  return stillPlaying(race, me) ? "resign" : null;
}

/** Leave every race of `races`. Returns false, and sends nothing, when the player stays. */
export function leaveRaces(conn, races, onError) {
  const steps = races
    .map((race) => ({ race: race.race, type: leaveRequest(race, conn.player) }))
    .filter((step) => step.type);
  if (steps.some((step) => step.type === "resign") && !window.confirm(LEAVE_QUESTION)) {
    return false;
  }
  for (const { race, type } of steps) conn.request(type, { race }).catch(onError);
  return true;
}
