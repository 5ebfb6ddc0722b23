// The account panel of the lobby: a guest creates an account (register: the same player,
// so their races stay theirs) or signs in; a member sees their name and signs out. The
// server's new token replaces the guest's, so a reload keeps the account. A refused
// request shows the server's own sentence (a wrong name and a wrong password read alike).

import { fill } from "./dom.js";
import { gameTitle } from "./games.js";
import { remembered } from "./storage.js";

/** The server's sentence as a sentence: "The username or the password is wrong." */
export function sentence(text) {
  const line = String(text ?? "").trim();
  return line ? `${line[0].toUpperCase()}${line.slice(1)}${/[.!?]$/.test(line) ? "" : "."}` : "";
}

export class AccountPanel {
  constructor(app) {
    this.app = app;
    this.form = document.getElementById("account-form");
    this.message = document.getElementById("account-message");
    document
      .getElementById("account-sign-out")
      .addEventListener("click", () => this.app.signOut());
  }

  /** Guest or member: which half of the panel shows, and the name in the top bar. */
  draw() {
    const account = this.app.conn?.account ?? null;
    document.body.dataset.account = account ? "true" : "false";
    document.getElementById("account-guest").hidden = Boolean(account);
    document.getElementById("account-member").hidden = !account;
    fill(document.getElementById("account-name"), account ?? "");
    document.getElementById("profile-link").hidden = !this.app.conn;
  }

  /** ``register`` or ``sign_in`` with the panel's fields, or with those given. */
  async send(type, given = null) {
    const fields = this.form.elements;
    const username = given?.username ?? fields.username.value.trim();
    const password = given?.password ?? fields.password.value;
    fill(this.message, type === "sign_in" ? "Signing in…" : "Creating your account…");
    this.message.classList.remove("error");
    try {
      const answer = await this.app.conn.request(type, { username, password });
      fields.password.value = "";
      this.app.conn.adopt(answer);
      remembered.token = answer.token;
      remembered.name = answer.name;
      fill(document.getElementById("player-name"), answer.name);
      const claimed = answer.claimed ?? [];
      fill(
        this.message,
        claimed.length
          ? `Your first daily attempt of today (${claimed.map(gameTitle).join(", ")}) now counts: it is on the boards.`
          : "",
      );
      this.draw();
      this.app.onAccount();
    } catch (error) {
      this.message.classList.add("error");
      fill(this.message, sentence(error.message));
    }
  }
}
