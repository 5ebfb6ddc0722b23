// A small line chart in SVG: the racers' cards home over the race's time (replays), or an
// account's rating over its rated races (profiles). No library: a few lines of SVG.

import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 160;
const PAD = { left: 34, right: 8, top: 8, bottom: 20 };

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  element.append(...children);
  return element;
}

/**
 * A chart of `lines` ([{label, points: [[x, y], ...]}]) over x in [0, xMax] and y in
 * [yMin, yMax]; `xText(x)` and `yText(y)` write the axes' ends. Its `cursor(x)` moves a
 * vertical line (the replay's time); `onPick(x)`, if given, gets the x of a click.
 */
export function lineChart({ lines, xMax, yMin = 0, yMax, xText = String, yText = String, label, onPick = null }) {
  const span = (value, low, high, from, to) => from + ((value - low) / (high - low || 1)) * (to - from);
  const x = (value) => span(value, 0, xMax, PAD.left, WIDTH - PAD.right);
  const y = (value) => span(value, yMin, yMax, HEIGHT - PAD.bottom, PAD.top);
  const root = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: "chart",
    role: "img",
    "aria-label": label,
  });
  const axis = svg("path", {
    class: "chart-axis",
    d: `M${PAD.left} ${PAD.top}V${HEIGHT - PAD.bottom}H${WIDTH - PAD.right}`,
  });
  const text = (content, attributes) => svg("text", { class: "chart-text", ...attributes }, content);
  root.append(
    axis,
    text(yText(yMax), { x: PAD.left - 4, y: PAD.top + 8, "text-anchor": "end" }),
    text(yText(yMin), { x: PAD.left - 4, y: HEIGHT - PAD.bottom, "text-anchor": "end" }),
    text(xText(0), { x: PAD.left, y: HEIGHT - 4 }),
    text(xText(xMax), { x: WIDTH - PAD.right, y: HEIGHT - 4, "text-anchor": "end" }),
  );
  lines.forEach((line, i) => {
    const points = line.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(" ");
    root.append(
      svg("polyline", { class: `chart-line chart-line-${i % 4}`, points, "data-label": line.label }),
    );
  });
  const cursor = svg("line", { class: "chart-cursor", y1: PAD.top, y2: HEIGHT - PAD.bottom, x1: x(0), x2: x(0) });
  root.append(cursor);
  if (onPick) {
    root.addEventListener("click", (event) => {
      const box = root.getBoundingClientRect();
      const at = ((event.clientX - box.left) / box.width) * WIDTH;
      onPick(Math.max(0, Math.min(xMax, span(at, PAD.left, WIDTH - PAD.right, 0, xMax))));
    });
  }
  root.cursor = (value) => {
    cursor.setAttribute("x1", x(value).toFixed(1));
    cursor.setAttribute("x2", x(value).toFixed(1));
  };
  return root;
}

/** The names of a chart's lines, each with its colour. */
export function legend(lines) {
  return h(
    "figcaption",
    { class: "chart-legend" },
    lines.map((line, i) => h("span", { class: `chart-key chart-key-${i % 4}` }, line.label)),
  );
}
