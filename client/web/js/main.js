// The page: one connection, one screen at a time, chosen by the address:
//   #lobby, #race=ID (also ?race=ID), #watch=ID, #watch (the top live race), #follow=PLAYER,
//   #boards=GAME, #replay=ID, #rules=GAME, #arenas (the list), #arenas=ID (an arena),
//   #profile (mine), #user=NAME (an account's), #player=ID (anyone's).
// The display name and the resume token are remembered, so a reload resumes the session.
// Leaving the race screen, or going into another race, leaves the race I am in first
// (see leaving.js): a race never goes on without its player.

import { Connection } from "./connection.js";
import { GAMES, learnGames } from "./games.js";
import { leaveRaces, stillPlaying } from "./leaving.js";
import { LobbyScreen } from "./lobby.js";
import { RaceScreen } from "./race.js";
import { rememberedChoice, rememberedSetting } from "./settings.js";
import { remembered } from "./storage.js";

const STATUS_TEXT = {
  connecting: "connecting…",
  online: "online",
  reconnecting: "reconnecting…",
  replaced: "playing in another tab",
  "signed out": "signed out",
  failed: "refused",
};

class App {
  constructor() {
    this.conn = null;
    this.welcomed = false;
    this.current = null;
    this.screens = {};
    this.noticeTimer = null;
  }

  start() {
    const query = new URLSearchParams(location.search);
    if (query.has("race")) {
      history.replaceState(
        null,
        "",
        `${location.pathname}#race=${encodeURIComponent(query.get("race"))}`,
      );
    }
    this.screens = {
      lobby: new LobbyScreen(this),
      race: new RaceScreen(this),
    };
    this.loadingScreens = {}; // name -> the promise of a screen of LATER (its module loading)
    this.loadGames();
    this.account = null; // the account panel and quick races: loaded when the session begins
    this.quick = null;
    this.wirePlayers();
    this.overRace = null; // the rules, a board or a profile over the race (openOverRace)
    rememberedSetting("labels-toggle", "labels", (on) => document.body.classList.toggle("pile-names", on));
    rememberedSetting("sound-toggle", "sound", (on) => {
      this.sound = on;
    });
    rememberedSetting("pick-up-toggle", "pickup", (on) => {
      this.pickUp = on;
      if (this.screens.race.board) this.screens.race.board.oneTap = !on;
    });
    rememberedSetting("auto-home-toggle", "autohome", (on) => {
      this.autoHome = on;
    });
    rememberedChoice("card-back", "back");
    rememberedChoice("table-colour", "table");
    const nameForm = document.getElementById("name-form");
    nameForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = nameForm.elements.name.value.trim();
      if (!name) return;
      remembered.name = name;
      this.connect(name);
    });
    const firstSignIn = document.getElementById("first-sign-in");
    firstSignIn.addEventListener("submit", (event) => {
      event.preventDefault();
      const { username, password } = firstSignIn.elements;
      const name = username.value.trim();
      if (!name) return;
      // a session first (as a guest of that name), then the account signed into on it
      this.signingIn = { username: name, password: password.value };
      password.value = "";
      remembered.name = name;
      this.connect(name);
    });
    document.getElementById("sign-out").addEventListener("click", () => this.signOut());
    document.getElementById("change-name").addEventListener("click", () => this.signOut(true));
    document.getElementById("reconnect-now").addEventListener("click", () => this.conn?.retryNow());
    document.getElementById("take-over").addEventListener("click", () => location.reload());
    window.addEventListener("hashchange", () => this.route());
    const name = remembered.name;
    if (name) this.connect(name);
    else this.showName();
  }

  showName() {
    this.show("name");
    document.getElementById("player-name").textContent = "";
    const input = document.querySelector("#name-form input[name=name]");
    input.value = remembered.name ?? "";
    input.focus();
  }

  connect(name) {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    this.conn = new Connection(url, { name, token: remembered.token, device: remembered.device });
    this.conn.addEventListener("status", (event) => this.onStatus(event.detail));
    this.conn.addEventListener("welcome", (event) => this.onWelcome(event.detail));
    this.conn.addEventListener("event", (event) => this.onEvent(event.detail));
    this.conn.addEventListener("watch", (event) => this.screens.watch?.onWatch(event.detail));
    this.conn.open();
  }

  /**
   * Forget the name and the session. A name change is a sign-out that keeps the old name
   * in the box: the server keeps a live session's name, so the new name is a new player.
   */
  async signOut(renaming = false) {
    const name = remembered.name;
    if (this.conn?.account && !renaming) {
      // An account's token is forgotten by the server too (it then closes with 4003).
      // Offline, the request would wait for the connection: give it 3 s, then go anyway.
      const pause = new Promise((done) => setTimeout(done, 3000));
      await Promise.race([this.conn.request("sign_out").catch(() => null), pause]);
    }
    this.quick?.forget();
    this.conn?.close();
    this.conn = null;
    this.welcomed = false;
    document.body.dataset.welcomed = "false";
    remembered.token = null;
    remembered.name = renaming ? name : null;
    this.account?.draw();
    this.showName();
    document.getElementById("name-note").hidden = !renaming;
  }

  onStatus({ status, detail }) {
    const pill = document.getElementById("connection");
    pill.textContent = STATUS_TEXT[status] ?? status;
    pill.dataset.status = status;
    document.getElementById("offline-banner").hidden = status !== "reconnecting";
    document.getElementById("replaced-banner").hidden = status !== "replaced";
    if (status === "failed") {
      this.notice(`The server refused this name: ${detail}`);
      remembered.name = null;
      this.showName();
    }
  }

  /** The server's games (`GET /games`, the list every welcome carries too); the screen
   * shown meanwhile is drawn again with them. */
  async loadGames() {
    try {
      const answer = await fetch("games");
      if (!answer.ok) return; // the welcome brings them
      learnGames(await answer.json());
    } catch {
      return; // offline: the welcome brings them
    }
    this.showGames();
    if (this.currentName === "rules") this.route();
  }

  showGames() {
    this.screens.lobby.showGames();
    this.screens.boards?.showGames();
  }

  onWelcome(welcome) {
    remembered.token = welcome.token;
    remembered.name = welcome.name;
    document.body.dataset.welcomed = "true";
    document.getElementById("player-name").textContent = welcome.name;
    if (!Object.keys(GAMES).length && welcome.games?.length) {
      learnGames(welcome.games); // the page could not ask for them: the welcome says them too
      this.showGames();
      if (this.currentName === "rules") this.route();
    }
    const signingIn = this.signingIn;
    this.signingIn = null;
    this.loadPlayers().then(() => {
      this.account.draw();
      if (signingIn) this.account.send("sign_in", signingIn);
    });
    if (!this.welcomed) {
      this.welcomed = true;
      this.route();
      return;
    }
    this.screens.arenas?.again();
    this.current?.onReconnected?.();
  }

  /**
   * The account panel and "Race someone now" (account.js, quick.js): not needed before the
   * name, so they are loaded once a session begins and the first load stays small.
   */
  loadPlayers() {
    this.players ??= Promise.all([import("./account.js"), import("./quick.js")]).then(
      ([{ AccountPanel }, { QuickRace }]) => {
        this.account = new AccountPanel(this);
        this.quick = new QuickRace(this);
      },
    );
    return this.players;
  }

  /**
   * The players' part's controls are there before its code: what they are asked meanwhile
   * waits for it (a form sent by the browser itself would put the password in the address).
   */
  wirePlayers() {
    document.getElementById("quick-games").addEventListener("click", async (event) => {
      const button = event.target.closest("button[data-game]");
      if (!button) return;
      await this.loadPlayers();
      this.quick.join(button.dataset.game);
    });
    document.getElementById("account-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const type = event.submitter?.value === "sign_in" ? "sign_in" : "register";
      await this.loadPlayers();
      this.account.send(type);
    });
  }

  /** Signed in or registered on this connection: the lobby shows the account's. */
  onAccount() {
    this.quick.forget(); // the server's pool forgot the guest
    if (this.currentName === "lobby") this.screens.lobby.show();
  }

  /** js/challenges.js, loaded when the first challenge comes or is sent (not with the page). */
  challenges() {
    this.loadingChallenges ??= import("./challenges.js").then((module) => new module.Challenges(this));
    return this.loadingChallenges;
  }

  onEvent(event) {
    if (event.kind === "challenged") {
      this.challenges().then((challenges) => challenges.offer(event));
      return;
    }
    if (event.kind === "challenge_declined") {
      this.challenges().then((challenges) => challenges.declined(event));
      return;
    }
    if (event.kind === "arena_standings") {
      this.screenLater("arenas").then((arenas) => arenas.told(event));
      return;
    }
    if (event.kind === "paired") {
      if (this.quick) this.quick.paired(event);
      else this.openRace(event.race);
      return;
    }
    if (this.screens.race.onEvent(event)) return;
    if (this.screens.watch?.onEvent(event)) return;
    // A race of mine begins while I am on another screen: go to it. One I resigned during
    // its countdown is still announced, and is not followed.
    const mineBegins =
      event.kind === "countdown" ||
      (event.kind === "started" && stillPlaying(event, this.conn.player));
    if (mineBegins) {
      this.navigate(`#race=${event.race}`);
    } else if (event.kind === "shutdown") {
      this.notice(`The server is restarting (${event.reason}); reconnecting…`);
    }
  }

  // ---------------------------------------------------------------- screens

  show(name) {
    const next = this.screens[name] ?? null;
    if (name !== this.currentName) this.notice(""); // a notice is about the screen it came on
    if (this.current && this.current !== next) this.current.hide?.();
    for (const section of document.querySelectorAll("main > section")) {
      section.hidden = section.id !== `screen-${name}`;
    }
    this.currentName = name;
    this.current = next;
    document.body.dataset.screen = name;
  }

  /** Go to `hash` (the screen follows through `route`). */
  navigate(hash) {
    if (location.hash === hash) this.route();
    else location.hash = hash;
  }

  /** Write `hash` into the address without routing (the screen is already showing it). */
  setHash(hash) {
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }

  route() {
    const [key, value = ""] = location.hash.replace(/^#/, "").split("=");
    const id = decodeURIComponent(value);
    if (!this.conn || !this.welcomed) {
      // Before the name: the rules can be read; anything else waits for the session.
      if (key === "rules") {
        this.show("rules");
        this.openLater("rules", id);
      } else if (!this.conn) {
        this.screens.rules?.hide();
        this.showName();
      }
      return;
    }
    const race = this.screens.race;
    const over = OVER_RACE[key];
    if (over && race.info && stillPlaying(race.info, this.conn.player)) {
      const what = over === "profile" ? this.profileOf(key, id) : id || race.info.game;
      this.openOverRace(over, what); // read while racing: nothing is left
      this.setHash(`#race=${race.raceId}`);
      return;
    }
    this.overRace?.giveBack();
    if (race.raceId && !(key === "race" && id === race.raceId) && !race.leave()) {
      this.setHash(`#race=${race.raceId}`); // the player chose to stay
      return;
    }
    const watch = this.screens.watch;
    if (key !== "watch" && key !== "follow" && (watch?.raceId || watch?.pick)) watch.stop();
    if (key !== "replay") this.screens.replay?.hide();
    if (key !== "rules") this.screens.rules?.hide();
    if (key === "race" && id) {
      this.show("race");
      if (race.raceId !== id) race.open(id);
    } else if (key === "watch" || (key === "follow" && id)) {
      this.show("watch");
      this.openWatch(key, id);
    } else if (key === "replay" && id) {
      this.show("replay");
      this.openReplay(id);
    } else if (key === "rules") {
      this.show("rules");
      this.openLater("rules", id);
    } else if (key === "profile" || key === "user" || key === "player") {
      this.show("profile");
      this.openLater("profile", this.profileOf(key, id));
    } else if (key === "boards" || key === "arenas") {
      this.show(key);
      this.openLater(key, id);
    } else {
      this.show("lobby");
      this.screens.lobby.show();
    }
  }

  /** Whose profile `#profile` (mine), `#user=NAME` or `#player=ID` asks for. */
  profileOf(key, id) {
    return key === "profile" ? { player: this.conn.player } : { [key === "user" ? "username" : "player"]: id };
  }

  /** A screen read over the race I play (js/over.js, loaded the first time). */
  async openOverRace(name, id) {
    if (!this.overRace) {
      const { OverRace } = await import("./over.js");
      this.overRace ??= new OverRace(this);
    }
    this.overRace.open(name, id);
  }

  /** The spectator screen is loaded when first opened: a race (#watch=ID), the top live
   * race (#watch) or a player followed (#follow=ID). */
  async openWatch(key, id) {
    if (!this.screens.watch) {
      const { WatchScreen } = await import("./watch.js");
      this.screens.watch ??= new WatchScreen(this);
    }
    if (this.currentName !== "watch") return;
    const watch = this.screens.watch;
    this.current = watch;
    if (key === "follow") watch.follow(id);
    else if (id) watch.open(id);
    else watch.openTop();
  }

  /** A screen of LATER, its module loaded when it is first opened. */
  screenLater(name) {
    this.loadingScreens[name] ??= LATER[name]().then((Screen) => {
      this.screens[name] = new Screen(this);
      return this.screens[name];
    });
    return this.loadingScreens[name];
  }

  async openLater(name, id) {
    const screen = await this.screenLater(name);
    if (this.currentName !== name) return;
    this.current = screen;
    screen.show(id || null);
  }

  /** The replay screen (and the deals' mechanics) is loaded when first opened. */
  async openReplay(id) {
    if (!this.screens.replay) {
      const { ReplayScreen } = await import("./replay.js");
      this.screens.replay ??= new ReplayScreen(this);
    }
    if (this.currentName !== "replay") return;
    this.current = this.screens.replay;
    if (this.screens.replay.raceId !== id) this.screens.replay.open(id);
  }

  /** Show a race I am in, from a race info or racer view I already have. */
  openRace(info, daily = null) {
    this.show("race");
    this.screens.race.open(info.race, info, daily);
  }

  /**
   * Before I create, join or start another race: leave the races I am still in (those
   * the server lists, but `except`). False when the player chose to stay in them.
   */
  async leaveMyRaces(except = null) {
    const { races } = await this.conn.request("my_races");
    const others = races.filter((race) => race.race !== except);
    return leaveRaces(this.conn, others, (error) => this.notice(error.message));
  }

  async startDaily(game, ghost = false) {
    try {
      if (!(await this.leaveMyRaces())) return;
      const answer = await this.conn.request("daily_start", { game, ghost: ghost || null });
      const { race, ...daily } = answer;
      this.openRace(race, daily); // a practice attempt says so under its title
    } catch (error) {
      this.notice(error.message);
    }
  }

  notice(text) {
    const notice = document.getElementById("notice");
    notice.textContent = text;
    notice.hidden = !text;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      notice.hidden = true;
    }, 6000);
  }
}

// Screens not needed on the first one: the rules (their text and example tables) and the
// leaderboards load when first opened, to keep the first load small.
const LATER = {
  rules: () => import("./rules.js").then((module) => module.RulesScreen),
  boards: () => import("./boards.js").then((module) => module.BoardsScreen),
  profile: () => import("./profile.js").then((module) => module.ProfileScreen),
  arenas: () => import("./arenas.js").then((module) => module.ArenasScreen),
};
// The addresses read over a race I play, not leaving it: their screens.
const OVER_RACE = { rules: "rules", boards: "boards", profile: "profile", user: "profile", player: "profile" };

const app = new App();
window.solrace = app; // for the curious, and for the browser tests
app.start();
