// The page's settings the player keeps (localStorage, through js/storage.js): checkboxes
// applied at once and on every change, and looks chosen from a list.

import { remembered } from "./storage.js";

/** A checkbox the page remembers (localStorage), applied now and on every change. */
export function rememberedSetting(id, key, apply) {
  const box = document.getElementById(id);
  box.checked = remembered.setting(key);
  apply(box.checked);
  box.addEventListener("change", () => {
    remembered.setSetting(key, box.checked);
    apply(box.checked);
  });
}

/** A look the player chooses (`select#id`), remembered, on the page as html[data-key]. */
export function rememberedChoice(id, key) {
  const select = document.getElementById(id);
  const apply = () => {
    document.documentElement.dataset[key] = select.value;
  };
  const kept = remembered.choice(key);
  if ([...select.options].some((option) => option.value === kept)) select.value = kept;
  apply();
  select.addEventListener("change", () => {
    remembered.setChoice(key, select.value);
    apply();
  });
}
