// The end of a race on the race screen: the results and another racer's rematch offer;
// and the rare sentence for moves the server's store lost (loaded when first needed).

import { fill, h } from "./dom.js";
import { ordinal, ratingText, shownName } from "./format.js";
import { rankingRows, shareBox } from "./results.js";
import { meFirst } from "./standings.js";

/**
 * The result, and what it did to ratings (`news`: the race's `rated`, `held` and
 * `unrated` events, each null until told).
 */
export function drawResult(el, info, result, app, { rated, held, unrated }) {
  el.results.hidden = !result;
  if (!result) return;
  const me = app.conn.player;
  fill(el["results-body"], rankingRows(result.ranking, me));
  fill(
    el["results-share"],
    info.arena && !result.deal
      ? h("p", { class: "sub" }, "Its replay opens once the arena is over: other heats race its deal until then.")
      : shareBox(result.race, (text) => app.notice(text)),
  );
  const mine = result.ranking.find((entry) => entry.player === me);
  const headline =
    mine?.rank === 1 && mine.outcome === "finished"
      ? "You won!"
      : mine?.outcome === "finished"
        ? `You finished ${ordinal(mine.rank)}`
        : "Race over";
  fill(el["results-title"], info.mode === "daily" ? "Attempt over" : headline);
  fill(el["results-deal"], result.deal ? `Deal ${result.deal}` : "");
  el["results-proof"].hidden = !result.nonce;
  fill(
    el["results-proof-text"],
    result.nonce
      ? `Nonce ${result.nonce}: the seal is the SHA-256 of the deal and this nonce. ` +
          `Check the whole race with: solrace verify race ${result.race}`
      : "",
  );
  drawRated(el["results-rating"], info.players, rated, me);
  drawPlace(el["results-place"], info, result, app);
  if (unrated) {
    // a race of two that moved no rating says why ("Not rated: ...": the server's sentence)
    el["results-rating"].hidden = false;
    fill(el["results-rating"], unrated.message);
  }
  if (held) {
    // The fair-play rule flagged a run of this race (docs/fairness.md): it counts once a
    // moderator has looked.
    el["results-rating"].hidden = false;
    fill(
      el["results-rating"],
      held.what === "daily"
        ? "Held for review: a moderator looks at this run before it goes on the board."
        : "Held for review: a moderator looks at this race before it moves anyone's rating.",
    );
  }
  el["rematch-button"].hidden = info.mode !== "race" || Boolean(info.arena);
  // a race the server paired, rated or not: straight back into that game's pool
  el["again-button"].hidden = info.mode !== "race" || !info.paired || Boolean(info.arena);
  // Once the ranked attempt is over, an account may race the day's best run's ghost.
  el["ghost-button"].hidden = info.mode !== "daily" || !app.conn.account;
  el["board-link"].hidden = info.mode !== "daily";
  el["board-link"].href = `#boards=${info.game}`;
  // an arena's heat: no rematch, the next heat soon (js/arena_heat.js)
  el["results-arena"].hidden = true;
  if (info.arena) app.screenLater("arenas").then((arenas) => arenas.heat.over(el, info, result));
}

const places = new Map(); // race id -> the line said of a ranked daily run's place

/**
 * A ranked daily run's place on the day's board at once, with the share of the day's
 * other runs it beat: "3rd of 120 today: better than 98% of the other runs". Asked once
 * (the run is on the board before the result is told); a practice run or a held one is
 * not on it, and says nothing.
 */
async function drawPlace(line, info, result, app) {
  const known = places.get(result.race);
  line.hidden = !known;
  fill(line, known ?? "");
  if (known !== undefined || info.mode !== "daily") return;
  places.set(result.race, null);
  try {
    const board = await app.conn.request("daily_board", {
      game: info.game,
      day: info.day,
      top: 1,
      around: 0,
    });
    if (board.me?.race !== result.race) return; // a practice run, or held for review
    const { rank } = board.me;
    const others = board.total - 1;
    const text = others
      ? `${ordinal(rank)} of ${board.total} today: better than ` +
        `${Math.floor((100 * (board.total - rank)) / others)}% of the other runs`
      : `${ordinal(rank)} today: the first run of the day`;
    places.set(result.race, text);
    fill(line, text);
    line.hidden = false;
  } catch {
    places.delete(result.race); // the result stands without it; asked again next time
  }
}

/** "Rating: Ann 1662? (+162), Bob 1338? (−162)": the `rated` event, mine first. */
function drawRated(line, players, rated, me) {
  const ratings = Object.entries(rated?.ratings ?? {});
  line.hidden = !ratings.length;
  ratings.sort(([a], [b]) => meFirst(me, a, b));
  const name = (player) =>
    player === me ? "You" : shownName(players.find((p) => p.player === player) ?? { name: player });
  fill(
    line,
    ratings.length ? "Rating: " : "",
    ratings.flatMap(([player, r], i) => [
      i ? ", " : "",
      `${name(player)} ${ratingText(r.rating, r.provisional)} (${signed(r.change)})`,
    ]),
  );
}

function signed(change) {
  const n = Math.round(change);
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

export function drawRematchOffer(el, players, offer) {
  el["rematch-offer"].hidden = !offer;
  if (!offer) return;
  const by = shownName(players.find((p) => p.player === offer.by) ?? { name: "Another racer" });
  fill(el["rematch-text"], `${by} offers a rematch.`);
}

/** What a racer is told when the server's store lost `lost` of their accepted moves. */
export function lostSentence(lost) {
  const moves = lost === 1 ? "your last move" : `your last ${lost} moves`;
  const what = lost
    ? `The server lost ${moves}: your game goes on from the cards shown.`
    : "The server lost some moves of this race.";
  return `${what} It will not be rated or ranked.`;
}
