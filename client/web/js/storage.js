// What the page remembers between visits: the display name and the resume token (the
// player's identity, so boards still find "me" and a reload resumes the session).

const NAME = "solrace.name";
const TOKEN = "solrace.token";

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // storage refused (private mode): the session still works until the page closes
  }
}

export const remembered = {
  get name() {
    return read(NAME);
  },
  set name(value) {
    write(NAME, value);
  },
  get token() {
    return read(TOKEN);
  },
  set token(value) {
    write(TOKEN, value);
  },
};
