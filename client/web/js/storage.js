// What the page remembers: the display name between visits (localStorage), and the resume
// token (the player's identity) for this tab only (sessionStorage), so a reload resumes the
// session while another tab is another player: two tabs of one browser can race each other.
// The tab also keeps the answer to its last daily_start, which only that answer carries.

const NAME = "solrace.name";
const TOKEN = "solrace.token";
const DAILY = "solrace.daily";
const DEVICE = "solrace.device";
const DEVICE_ID = /^[A-Za-z0-9_-]{16,64}$/;
let pageDevice = null; // when localStorage refuses: this page's own id

function read(key, storage = localStorage) {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value, storage = localStorage) {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // storage refused (private mode): the session still works until the page closes
  }
}

/** A new device id: 32 characters of A-Z a-z 0-9 _ - (24 random bytes, base64url). */
function newDevice() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

export const remembered = {
  /** This browser's device id, said in every hello (kept in localStorage; made once). */
  get device() {
    const kept = read(DEVICE);
    if (kept && DEVICE_ID.test(kept)) return kept;
    pageDevice ??= newDevice();
    write(DEVICE, pageDevice);
    return pageDevice;
  },
  get name() {
    return read(NAME);
  },
  set name(value) {
    write(NAME, value);
  },
  get token() {
    return read(TOKEN, sessionStorage);
  },
  set token(value) {
    write(TOKEN, value, sessionStorage);
  },
  /** A yes/no setting of this browser (pile names, sound): off until switched on. */
  setting(key) {
    return read(`solrace.${key}`) === "on";
  },
  setSetting(key, on) {
    write(`solrace.${key}`, on ? "on" : null);
  },
  /** A choice of this browser among a few (the card back, the table): null until made. */
  choice(key) {
    return read(`solrace.${key}`);
  },
  setChoice(key, value) {
    write(`solrace.${key}`, value);
  },
  /** {race, day, ranked, certified, next_day_ms} of this tab's last daily attempt, or null. */
  get daily() {
    try {
      return JSON.parse(read(DAILY, sessionStorage));
    } catch {
      return null;
    }
  },
  set daily(value) {
    write(DAILY, value && JSON.stringify(value), sessionStorage);
  },
};
