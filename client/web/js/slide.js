// A move's animation on a board (board.js): where its cards were, and each card that moved
// sliding from there (a card just turned face up flips, a dealt one comes from the stock).

export const SLIDE_MS = 120; // how long a card takes to go where it goes (the whole move within 200 ms)

/** pile -> its cards' {key, pile, left, top}, relative to the board `root`'s corner. */
export function measurePlaces(root) {
  const origin = root.getBoundingClientRect();
  const noted = new Map();
  for (const card of root.querySelectorAll(".card")) {
    const pile = card.closest(".pile").dataset.pile;
    const rect = card.getBoundingClientRect();
    const key = card.dataset.card ?? `back ${pile}`;
    if (!noted.has(pile)) noted.set(pile, []);
    noted.get(pile).push({ key, pile, left: rect.left - origin.left, top: rect.top - origin.top });
  }
  return noted;
}

/**
 * The face-up cards of `piles` on the board `root` that changed place slide there from
 * where `before` (key -> [{pile, left, top}]) had them; a card just turned face up flips.
 * Settles when every card has arrived.
 */
export function slide(root, before, piles) {
  const pileElement = (pile) => root.querySelector(`.pile[data-pile="${pile}"]`);
  const origin = root.getBoundingClientRect();
  const stock = pileElement("s")?.getBoundingClientRect();
  const moving = [];
  const cards = piles.flatMap((pile) => [...(pileElement(pile)?.querySelectorAll(".card.face") ?? [])]);
  for (const card of cards) {
    const pile = card.closest(".pile").dataset.pile;
    const rect = card.getBoundingClientRect();
    const earlier = before.get(card.dataset.card) ?? [];
    const at = earlier.findIndex((place) => place.pile === pile);
    const from = at >= 0 ? earlier.splice(at, 1)[0] : earlier.shift();
    let frames = null;
    if (from) {
      const dx = origin.left + from.left - rect.left;
      const dy = origin.top + from.top - rect.top;
      if (Math.abs(dx) + Math.abs(dy) > 1) frames = slideFrom(dx, dy);
    } else if (before.has(`back ${pile}`)) {
      frames = [{ transform: "rotateY(90deg)" }, { transform: "none" }];
    } else if (stock) {
      frames = slideFrom(stock.left - rect.left, stock.top - rect.top);
    }
    if (frames) moving.push(card.animate(frames, { duration: SLIDE_MS, easing: "ease-out" }).finished);
  }
  return Promise.all(moving).catch(() => {});
}

function slideFrom(dx, dy) {
  return [
    { transform: `translate(${dx}px, ${dy}px)`, zIndex: 20 },
    { transform: "none", zIndex: 20 },
  ];
}
