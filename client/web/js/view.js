// A player's view (docs/protocol.md, "View") and the event items that change it. The
// client never guesses: it changes a view only by applying what the server reported.

/** A deep copy, so a view held elsewhere is never changed behind its owner's back. */
export function copyView(view) {
  return structuredClone(view);
}

/** The face-up cards of the pile named `pile` ("t3", "f0", "r1", "w"), bottom first. */
export function pileCards(view, pile) {
  const kind = pile[0];
  const index = Number(pile.slice(1));
  if (kind === "t") return view.tableau[index];
  if (kind === "f") return view.foundations[index];
  if (kind === "r") return (view.reserves ?? [])[index];
  if (kind === "w") return view.waste;
  throw new Error(`no pile ${pile} holds face-up cards`);
}

/**
 * The view after `events` (the items of an `act` result or a `watch` act item). `undone`
 * needs the view the server sent with it (`replacement`); without one the view is kept.
 */
export function applyEvents(view, events, replacement = null) {
  let next = copyView(view);
  for (const event of events) {
    if (event.type === "moved") {
      const source = pileCards(next, event.src);
      source.splice(source.length - event.cards.length, event.cards.length);
      pileCards(next, event.dst).push(...event.cards);
    } else if (event.type === "revealed") {
      const index = Number(event.pile.slice(1));
      next.face_down[index] -= 1;
      next.tableau[index].push(event.card);
    } else if (event.type === "dealt") {
      event.piles.forEach((pile, i) => pileCards(next, pile).push(event.cards[i]));
      next.stock -= event.cards.length;
    } else if (event.type === "refilled") {
      if (event.src === "w") next.waste.pop();
      else next.stock -= 1;
      pileCards(next, event.reserve).push(event.card);
    } else if (event.type === "undone" && replacement) {
      next = copyView(replacement);
    }
  }
  if (replacement) next = copyView(replacement);
  return next;
}

/** Cards on the foundations. */
export function progressOf(view) {
  return view.foundations.reduce((sum, pile) => sum + pile.length, 0);
}
