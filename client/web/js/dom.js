// A small helper to build elements. Text always goes in as text, never as HTML, so names
// chosen by players can never inject markup.

/**
 * h("button", {class: "primary", onclick: f, dataset: {pile: "t3"}}, "Deal") — an element
 * with attributes, event handlers (on...), dataset entries and children (strings or nodes).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") Object.assign(element.dataset, value);
    else if (key === "style" && typeof value === "object") {
      for (const [name, setting] of Object.entries(value)) element.style.setProperty(name, setting);
    } else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else if (key === "class") element.className = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Replace every child of `element` with `children`. */
export function fill(element, ...children) {
  element.replaceChildren();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}
