// Times, durations, outcomes, places and ratings as people read them.

/** 83456 -> "1:23.4"; an hour or more -> "1:02:03". */
export function clockText(ms) {
  const total = Math.max(0, Math.floor(ms / 100));
  const tenths = total % 10;
  const seconds = Math.floor(total / 10) % 60;
  const minutes = Math.floor(total / 600) % 60;
  const hours = Math.floor(total / 36000);
  const ss = String(seconds).padStart(2, "0");
  if (hours > 0) return `${hours}:${String(minutes).padStart(2, "0")}:${ss}`;
  return `${minutes}:${ss}.${tenths}`;
}

/** A wait in whole units: "5 h 03 min", "12 min 09 s", "8 s". */
export function waitText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor(seconds / 60) % 60;
  const s = seconds % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} min`;
  if (m > 0) return `${m} min ${String(s).padStart(2, "0")} s`;
  return `${s} s`;
}

const OUTCOMES = {
  finished: "finished",
  resigned: "resigned",
  dropped: "dropped out",
  stuck: "stuck",
  timed_out: "out of time",
};

export function outcomeText(outcome) {
  return outcome ? (OUTCOMES[outcome] ?? outcome) : "playing";
}

/** A deal's commitment as players read it: the server sealed the deal before play. */
export function sealText(commitment) {
  return commitment ? `Deal sealed before play: ${commitment}` : "";
}

/** 2 -> "2nd", 11 -> "11th". */
export function ordinal(n) {
  const suffix =
    n % 10 === 1 && n % 100 !== 11
      ? "st"
      : n % 10 === 2 && n % 100 !== 12
        ? "nd"
        : n % 10 === 3 && n % 100 !== 13
          ? "rd"
          : "th";
  return `${n}${suffix}`;
}

/** 1532, or 1532? while provisional. */
export function ratingText(rating, provisional) {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

/** A name as shown: a bot's always says so ("Robo (bot)"). */
export function shownName(who) {
  return who.bot ? `${who.name} (bot)` : who.name;
}
