// Challenges between players: one offered to me (Accept joins the challenger's race, leaving
// mine; Decline tells them no), mine declined, and mine sent from a profile.

import { gameTitle } from "./games.js";
import { remembered } from "./storage.js";

export class Challenges {
  constructor(app) {
    this.app = app;
    document.getElementById("challenge-accept").addEventListener("click", () => this.answer(true));
    document.getElementById("challenge-decline").addEventListener("click", () => this.answer(false));
  }

  /**
   * Someone challenges me: *Accept* joins their race (leaving mine), *Decline* tells them
   * no; a player who turns down every challenge (their profile) is not asked.
   */
  offer(challenge) {
    if (remembered.setting("nochallenges")) {
      this.decline(challenge.race);
      return;
    }
    const offer = document.getElementById("challenge-offer");
    const who = challenge.account ? challenge.name : `${challenge.name} (guest)`;
    document.getElementById("challenge-text").textContent =
      `${who} challenges you to ${gameTitle(challenge.game)}.`;
    offer.dataset.race = challenge.race;
    offer.hidden = false;
  }

  async answer(accepted) {
    const offer = document.getElementById("challenge-offer");
    offer.hidden = true;
    if (!accepted) {
      this.decline(offer.dataset.race);
      return;
    }
    try {
      if (!(await this.app.leaveMyRaces())) return;
      this.app.openRace((await this.app.conn.request("join_race", { race: offer.dataset.race })).race);
    } catch (error) {
      this.app.notice(error.message); // the challenger left it, or someone else took the seat
    }
  }

  decline(race) {
    this.app.conn.request("decline_challenge", { race }).catch(() => {}); // gone already: nothing to say
  }

  /** My challenge was declined: leave its race for the lobby if it is on screen; say so. */
  declined(event) {
    const race = this.app.screens.race;
    if (race.raceId === event.race && race.info?.phase === "open") {
      this.app.setHash("#lobby");
      this.app.route(); // leaves the race, now, so that the notice below is the lobby's
    }
    this.app.notice(`${event.name} declined your challenge.`);
  }

  /** Challenge `player` to `game` from their profile: my private race waits for them. */
  async challenge(player, game) {
    if (!(await this.app.leaveMyRaces())) return;
    this.app.openRace((await this.app.conn.request("challenge", { player, game })).race);
  }
}
