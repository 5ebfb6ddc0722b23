// One player's cards on the table, drawn from a view, and (when interactive) the ways to
// move them: click a card to send it to its best legal place (or, when it has none or the
// player chose so, click it then where it goes), drag it there, double-click it to send it
// to a foundation, click the stock to deal. The board never changes a view itself: it
// reports the action, and the owner redraws it from the server's answer. Each pile's
// element is drawn by js/piles.js.

import { cardLabel } from "./cards.js";
import { h } from "./dom.js";
import { layoutFor, pileName } from "./games.js";
import { bestPlace } from "./moves.js";
import { pileKey, slotPile, tableauPile } from "./piles.js";
import { measurePlaces, SLIDE_MS, slide } from "./slide.js";

const DRAG_THRESHOLD_PX = 6;
// A press this soon after a one-tap move, on the same spot, is the second half of a
// double-click (a habit from other solitaires): it does not move the next card too.
const DOUBLE_CLICK_MS = 400;
const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)");

export class Board {
  /**
   * `game` names the layout; with `onAction(text)` the board is playable, otherwise it
   * only shows the cards (spectators).
   */
  constructor(root, { game, onAction = null, label = "" }) {
    this.root = root;
    this.game = game;
    this.onAction = onAction;
    this.view = null;
    this.legal = null; // the player's legal actions in `view` (the owner keeps it)
    this.oneTap = true; // a click on a card plays its best place (false: picks it up)
    this.selection = null; // {pile, count, index}
    this.press = null;
    this.drag = null;
    this.listening = new AbortController(); // destroy() removes every listener with it
    this.animated = Promise.resolve(); // settles when the last render's cards have arrived
    root.classList.add("board");
    root.dataset.game = game;
    if (label) root.setAttribute("aria-label", label);
    root.setAttribute("role", "region");
    root.classList.toggle("playable", Boolean(onAction));
    if (onAction) {
      const { signal } = this.listening;
      root.addEventListener("pointerdown", (event) => this.onPointerDown(event), { signal });
      root.addEventListener("dblclick", (event) => this.onDoubleClick(event), { signal });
      root.addEventListener("keydown", (event) => this.onKey(event), { signal });
    }
  }

  /** Stop listening: the element may get another Board, which alone acts from then on. */
  destroy() {
    this.listening.abort();
    this.resized?.disconnect();
    if (this.drag) this.endDrag();
    this.press = null;
  }

  get playable() {
    return this.onAction !== null;
  }

  /**
   * Draw `view`. Only the piles whose cards changed are drawn again (a move touches two or
   * three; the other racers' moves none), and those of their cards that moved slide from
   * where they were, unless the player prefers reduced motion. A card in hand stays there
   * unless its pile changed. A move drawn `ahead` of the server's answer is followed by
   * that answer's position: the card it turned flips then.
   */
  render(view, ahead = false) {
    // Moves typed in a burst follow each other faster than a slide: those redraw at once.
    const now = performance.now();
    const calm = this.ahead || now - (this.drawnAt ?? -Infinity) >= SLIDE_MS;
    this.drawnAt = now;
    this.ahead = ahead;
    // (a move drawn ahead may leave the pile with no card to focus until the answer)
    const focused = this.root.contains(document.activeElement)
      ? document.activeElement.closest(".pile")?.dataset.pile ?? ""
      : this.focusLater;
    const layout = layoutFor(this.game, view);
    const shape = JSON.stringify(layout);
    if (shape !== this.shape) {
      this.shape = shape;
      this.view = view;
      this.clearSelection();
      this.drawTable(layout, view);
    } else {
      const changed = this.pilesChanged(layout, view);
      if (changed.includes(this.selection?.pile)) this.clearSelection();
      if (changed.length) this.clearHint();
      const before = calm && !REDUCED_MOTION.matches ? this.placesOf(changed) : null;
      this.view = view;
      for (const pile of changed) this.pileElement(pile).replaceWith(this.drawPile(pile, layout, view));
      if (before) this.animated = slide(this.root, before, changed);
    }
    if (focused != null && !this.root.contains(document.activeElement)) this.refocus(focused);
    this.focusLater = ahead && !this.root.contains(document.activeElement) ? focused : null;
    this.notePlacesLater();
  }

  /** Lay the whole table out (the first view, or one with other piles). */
  drawTable(layout, view) {
    this.root.style.setProperty("--cols", layout.cols);
    const rows = layout.top.map((row) =>
      h(
        "div",
        { class: "board-row top-row" },
        row.map((pile, column) => (pile ? slotPile(pile, view, column, this.playable) : null)),
      ),
    );
    const tableau = h(
      "div",
      { class: "board-row tableau-row" },
      layout.tableau.map((pile, i) => tableauPile(pile, view, layout.tableauFrom + i, this.playable)),
    );
    this.root.replaceChildren(...rows, tableau);
  }

  /** The piles whose cards differ between the drawn view and `view`. */
  pilesChanged(layout, view) {
    const piles = [...layout.top.flat().filter(Boolean), ...layout.tableau];
    return piles.filter((pile) => pileKey(this.view, pile) !== pileKey(view, pile));
  }

  /** One pile's element, drawn from `view` in its place of the layout. */
  drawPile(pile, layout, view) {
    if (pile[0] === "t") return tableauPile(pile, view, layout.tableauFrom + Number(pile.slice(1)), this.playable);
    const row = layout.top.find((piles) => piles.includes(pile));
    return slotPile(pile, view, row.indexOf(pile), this.playable);
  }

  /** Keep the keyboard on the table after a move: the same pile's top card, or the table. */
  refocus(pile) {
    const element = pile ? this.pileElement(pile) : null;
    const cards = element ? element.querySelectorAll("[tabindex]") : [];
    const target = cards.length ? cards[cards.length - 1] : element?.matches("[tabindex]") ? element : this.root;
    target.focus({ preventScroll: true });
  }

  // ---------------------------------------------------------------- animation

  /**
   * Where each card of `piles` is, by name (two-deck games: in the order they are drawn),
   * relative to the board. Noted once the cards are still (measuring forces the page's
   * layout, which would slow the next move by as long as a frame on a slow phone), and
   * measured now only when that note is missing (a burst of moves, a resized board).
   */
  placesOf(piles) {
    const places = new Map();
    const noted = this.places ?? measurePlaces(this.root);
    for (const { key, pile, left, top } of piles.flatMap((name) => noted.get(name) ?? [])) {
      if (!places.has(key)) places.set(key, []);
      places.get(key).push({ pile, left, top });
    }
    return places;
  }

  /**
   * Note where the cards are once they have arrived; forget it when the board's width
   * changes (its height follows the tallest pile, which moves no card).
   */
  notePlacesLater() {
    this.places = null;
    if (!this.resized) {
      let width = null;
      this.resized = new ResizeObserver(([entry]) => {
        if (entry.contentRect.width !== width) this.places = null;
        width = entry.contentRect.width;
      });
      this.resized.observe(this.root);
    }
    const drawn = this.drawnAt;
    this.animated.then(() =>
      requestAnimationFrame(() => {
        if (this.drawnAt === drawn && this.root.isConnected) this.places = measurePlaces(this.root);
      }),
    );
  }


  // ---------------------------------------------------------------- what can be picked up

  /** The cards a press on `cardElement` in `pileElement` picks up, or null. */
  grabAt(pileElement, cardElement) {
    if (!pileElement || !cardElement || !cardElement.classList.contains("face")) return null;
    const pile = pileElement.dataset.pile;
    const index = Number(cardElement.dataset.index);
    if (pile[0] === "t") {
      const up = this.view.tableau[Number(pile.slice(1))];
      return { pile, index, count: up.length - index };
    }
    if (pile === "w" || pile[0] === "r") return { pile, index, count: 1 };
    return null; // foundations are final; the stock is dealt, not picked
  }

  select(grab) {
    this.clearSelection();
    this.selection = grab;
    const pile = this.pileElement(grab.pile);
    for (const card of pile.querySelectorAll(".card.face")) {
      if (Number(card.dataset.index) >= grab.index) card.classList.add("selected");
    }
    pile.classList.add("source");
  }

  clearSelection() {
    this.selection = null;
    for (const card of this.root.querySelectorAll(".selected")) card.classList.remove("selected");
    for (const pile of this.root.querySelectorAll(".source")) pile.classList.remove("source");
  }

  /**
   * Show `action` on the table until the next move or redraw of its piles: the cards it
   * moves and where they go (the stock, for a deal). Its sentence, for the player.
   */
  showHint(action) {
    this.clearSelection();
    this.clearHint();
    const [src, count, dst] = action.split(" ");
    if (!dst) {
      this.pileElement("s")?.classList.add("hint-target");
      return `Hint: ${action}.`;
    }
    const faces = [...this.pileElement(src).querySelectorAll(".card.face")];
    const moving = faces.slice(faces.length - Number(count));
    for (const card of moving) card.classList.add("hinted");
    const target = dst === "f" ? this.root.querySelector(".pile-f") : this.pileElement(dst);
    target?.classList.add("hint-target");
    const where = dst === "f" ? "home to a foundation" : `onto ${pileName(dst)}`;
    return `Hint: ${cardLabel(moving[0].dataset.card)} ${where}.`;
  }

  /** Outline the top `count` cards of each [pile, count] (a replay's last move); only those. */
  highlight(moved) {
    for (const card of this.root.querySelectorAll(".moved")) card.classList.remove("moved");
    for (const [pile, count] of moved) {
      const faces = [...(this.pileElement(pile)?.querySelectorAll(".card.face") ?? [])];
      for (const card of faces.slice(-count)) card.classList.add("moved");
    }
  }

  clearHint() {
    for (const card of this.root.querySelectorAll(".hinted")) card.classList.remove("hinted");
    for (const pile of this.root.querySelectorAll(".hint-target")) pile.classList.remove("hint-target");
  }

  pileElement(pile) {
    return this.root.querySelector(`.pile[data-pile="${pile}"]`);
  }

  /** Send the move of `grab` onto `pile` (any foundation, when `pile` is one). */
  moveTo(grab, pile) {
    this.clearSelection();
    const target = pile[0] === "f" ? "f" : pile;
    this.onAction(`${grab.pile} ${grab.count} ${target}`);
  }

  // ---------------------------------------------------------------- clicks and keys

  /** A click or tap on a pile (and card); true when it played a card's best place. */
  tap(pileElement, cardElement) {
    const pile = pileElement.dataset.pile;
    if (pile === "s") {
      this.clearSelection();
      this.onAction("deal");
      return;
    }
    const grab = this.grabAt(pileElement, cardElement);
    const held = this.selection;
    if (held && held.pile !== pile) {
      this.moveTo(held, pile);
    } else if (held && grab && held.index !== grab.index) {
      this.select(grab);
    } else if (held) {
      this.clearSelection();
    } else if (grab) {
      const best = this.oneTap ? bestPlace(this.legal, this.view, grab) : null;
      if (!best) this.select(grab);
      else {
        this.onAction(best);
        return true;
      }
    }
    return false;
  }

  /**
   * The keyboard's way to move: the first pile key picks that pile's top card (the same
   * key again takes one more card of a tableau pile), the next names where it goes (`f`:
   * a foundation). False when the key did nothing here (so `f` can mean Finish).
   */
  pressPile(pile) {
    const held = this.selection;
    if (pile === "f") {
      if (!held) return false;
      this.moveTo(held, "f");
      return true;
    }
    if (!this.pileElement(pile)) return false;
    if (held && held.pile === pile) {
      if (pile[0] === "t" && held.index > 0) this.select({ pile, index: held.index - 1, count: held.count + 1 });
      return true;
    }
    if (held) {
      this.moveTo(held, pile);
      return true;
    }
    const cards = this.pileElement(pile).querySelectorAll(".card.face");
    const grab = cards.length ? this.grabAt(this.pileElement(pile), cards[cards.length - 1]) : null;
    if (grab) this.select(grab);
    return Boolean(grab);
  }

  onKey(event) {
    if (event.key !== "Enter" && event.key !== " ") {
      if (event.key === "Escape") this.clearSelection();
      return;
    }
    const pileElement = event.target.closest(".pile");
    if (!pileElement || !this.root.contains(pileElement)) return;
    event.preventDefault();
    this.tap(pileElement, event.target.closest(".card"));
  }

  onDoubleClick(event) {
    if (this.oneTap) return; // its first click sent the card to its best place: home if it can
    const pileElement = event.target.closest(".pile");
    const grab = this.grabAt(pileElement, event.target.closest(".card"));
    if (grab && grab.count === 1) {
      this.clearSelection();
      this.onAction(`${grab.pile} 1 f`);
    }
  }

  // ---------------------------------------------------------------- pointer: tap or drag

  onPointerDown(event) {
    if (event.button !== 0 || this.press) return;
    const pileElement = event.target.closest(".pile");
    if (!pileElement || !this.root.contains(pileElement)) return;
    const last = this.lastTap;
    if (
      last &&
      event.timeStamp - last.at < DOUBLE_CLICK_MS &&
      Math.hypot(event.clientX - last.x, event.clientY - last.y) < DRAG_THRESHOLD_PX
    )
      return;
    const cardElement = event.target.closest(".card");
    this.press = {
      id: event.pointerId,
      x: event.clientX,
      y: event.clientY,
      pileElement,
      cardElement,
      grab: this.grabAt(pileElement, cardElement),
    };
    const move = (e) => this.onPointerMove(e);
    const up = (e) => finish(e, false);
    const cancel = (e) => finish(e, true);
    const finish = (e, cancelled) => {
      if (e.pointerId !== this.press?.id) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", cancel);
      this.onPointerUp(e, cancelled);
    };
    const { signal } = this.listening;
    window.addEventListener("pointermove", move, { signal });
    window.addEventListener("pointerup", up, { signal });
    window.addEventListener("pointercancel", cancel, { signal });
  }

  onPointerMove(event) {
    const press = this.press;
    if (!press || event.pointerId !== press.id) return;
    if (!this.drag) {
      const distance = Math.hypot(event.clientX - press.x, event.clientY - press.y);
      if (!press.grab || distance < DRAG_THRESHOLD_PX) return;
      this.startDrag(press);
    }
    event.preventDefault();
    const x = event.clientX - this.drag.dx;
    const y = event.clientY - this.drag.dy;
    this.drag.ghost.style.transform = `translate(${x}px, ${y}px)`;
    const target = this.pileAt(event.clientX, event.clientY);
    if (target !== this.drag.over) {
      this.drag.over?.classList.remove("drop-target");
      this.drag.over = target;
      if (target && target.dataset.pile !== press.grab.pile) target.classList.add("drop-target");
    }
  }

  onPointerUp(event, cancelled) {
    const press = this.press;
    this.press = null;
    if (!press) return;
    if (!this.drag) {
      const moved = !cancelled && this.tap(press.pileElement, press.cardElement);
      this.lastTap = moved ? { at: event.timeStamp, x: event.clientX, y: event.clientY } : null;
      return;
    }
    const target = cancelled ? null : this.pileAt(event.clientX, event.clientY);
    this.endDrag();
    if (target && target.dataset.pile !== press.grab.pile)
      this.moveTo(press.grab, target.dataset.pile);
  }

  startDrag(press) {
    this.select(press.grab);
    const pile = press.pileElement;
    const cards = [...pile.querySelectorAll(".card.face")].filter(
      (card) => Number(card.dataset.index) >= press.grab.index,
    );
    const first = cards[0].getBoundingClientRect();
    const ghost = h("div", {
      class: "drag-ghost",
      "aria-hidden": "true",
      style: { "--card-w": `${first.width}px`, "--card-h": `${first.height}px` },
    });
    for (const card of cards) {
      const rect = card.getBoundingClientRect();
      const copy = card.cloneNode(true);
      copy.classList.remove("selected");
      copy.removeAttribute("tabindex");
      copy.style.position = "absolute";
      copy.style.top = `${rect.top - first.top}px`;
      copy.style.left = "0px";
      ghost.append(copy);
      card.classList.add("lifted");
    }
    document.body.append(ghost);
    this.drag = { ghost, dx: press.x - first.left, dy: press.y - first.top, over: null, cards };
    ghost.style.transform = `translate(${first.left}px, ${first.top}px)`;
  }

  endDrag() {
    const drag = this.drag;
    this.drag = null;
    drag.ghost.remove();
    drag.over?.classList.remove("drop-target");
    for (const card of drag.cards) card.classList.remove("lifted");
    this.clearSelection();
  }

  /** The pile of this board under a point of the screen, or null. */
  pileAt(x, y) {
    const element = document.elementFromPoint(x, y)?.closest(".pile");
    return element && this.root.contains(element) ? element : null;
  }
}
