// Hidden characters made visible. A text field of the editor or the task table that holds
// characters a reader cannot see (zero-width, bidirectional controls, Unicode tags, control
// characters: the set the hidden-unicode rule flags, lint/rules_security.go hiddenKind) gets a
// strip right under it showing each one as a mark, in a few characters of its context, the way
// code editors draw control pictures. A mark is a button that selects its character in the
// field, so Delete removes it. The strips follow typing (input events) and patches (a
// MutationObserver). The field's text is hostile: it only ever goes in through textContent.

// The hidden characters: [first, last, kind, short name]. kind is the rule's (tag, bidi,
// invisible); a range without a name is named by name() below.
const RANGES = [
  [0x00, 0x08, "invisible"], [0x0b, 0x0c, "invisible"], [0x0e, 0x1f, "invisible"], [0x7f, 0x9f, "invisible"],
  [0xad, 0xad, "invisible", "SHY"], [0x34f, 0x34f, "invisible", "CGJ"], [0x61c, 0x61c, "bidi", "ALM"],
  [0x115f, 0x115f, "invisible", "HCF"], [0x1160, 0x1160, "invisible", "HJF"], [0x180e, 0x180e, "invisible", "MVS"],
  [0x200b, 0x200b, "invisible", "ZWSP"], [0x200c, 0x200c, "invisible", "ZWNJ"], [0x200d, 0x200d, "invisible", "ZWJ"],
  [0x200e, 0x200e, "bidi", "LRM"], [0x200f, 0x200f, "bidi", "RLM"],
  [0x202a, 0x202a, "bidi", "LRE"], [0x202b, 0x202b, "bidi", "RLE"], [0x202c, 0x202c, "bidi", "PDF"],
  [0x202d, 0x202d, "bidi", "LRO"], [0x202e, 0x202e, "bidi", "RLO"],
  [0x2060, 0x2060, "invisible", "WJ"], [0x2061, 0x2061, "invisible", "FA"], [0x2062, 0x2062, "invisible", "IT"],
  [0x2063, 0x2063, "invisible", "IS"], [0x2064, 0x2064, "invisible", "IP"],
  [0x2066, 0x2066, "bidi", "LRI"], [0x2067, 0x2067, "bidi", "RLI"], [0x2068, 0x2068, "bidi", "FSI"], [0x2069, 0x2069, "bidi", "PDI"],
  [0x3164, 0x3164, "invisible", "HF"], [0xfeff, 0xfeff, "invisible", "BOM"], [0xffa0, 0xffa0, "invisible", "HWHF"],
  [0xe0000, 0xe007f, "tag"], [0xe0100, 0xe01ef, "invisible"],
];
const C0 = "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US".split(" ");
const HIDDEN = new RegExp("[" + RANGES.map(([a, b]) => "\\u{" + a.toString(16) + "}-\\u{" + b.toString(16) + "}").join("") + "]", "u");
const ALL = new RegExp(HIDDEN.source, "gu");
const FIELDS = "#editor textarea, #editor input[type=text], #tasks textarea, #tasks input[type=text]";
const CONTEXT = 12; // characters of context shown on each side of a mark
const MAX_MARKS = 60; // marks drawn per field; the strip counts the rest

function range(cp) {
  for (const r of RANGES) if (cp >= r[0] && cp <= r[1]) return r;
  return null;
}

// kind is the rule's kind of hidden character cp, or "".
function kind(cp) {
  const r = range(cp);
  return r ? r[2] : "";
}

// name is a short label for the hidden character cp.
function name(cp) {
  const r = range(cp);
  if (r && r[3]) return r[3];
  if (cp < 0x20) return C0[cp];
  if (cp === 0x7f) return "DEL";
  if (cp <= 0x9f) return "C1";
  if (cp >= 0xe0100) return "VS" + (cp - 0xe0100 + 17);
  return "TAG";
}

const hex = (cp) => "U+" + cp.toString(16).toUpperCase().padStart(4, "0");

// scan splits text into pieces: {text} for visible text and {hidden: [code points], start, end}
// for hidden characters (UTF-16 offsets, as the field's selection counts), up to limit pieces of
// hidden characters. A run of tag characters is one piece, because together they spell a hidden
// message. count is how many hidden characters text holds, more how many pieces are left out.
function scan(text, limit) {
  const pieces = [];
  let plain = 0, count = 0, shown = 0, more = 0, last = null;
  ALL.lastIndex = 0;
  for (let m; (m = ALL.exec(text));) {
    const i = m.index, cp = m[0].codePointAt(0), tag = kind(cp) === "tag", end = i + m[0].length;
    count++;
    if (tag && last && last.tag && last.end === i) {
      last.hidden.push(cp);
      last.end = plain = end;
      continue;
    }
    if (shown === limit) {
      more++;
      last = { hidden: [], tag, end };
      continue;
    }
    if (plain < i) pieces.push({ text: text.slice(plain, i) });
    last = { hidden: [cp], start: i, end, tag };
    pieces.push(last);
    shown++;
    plain = end;
  }
  if (plain < text.length && more === 0) pieces.push({ text: text.slice(plain) });
  return { pieces, count, more };
}

// label is what a mark shows: "ZWSP U+200B", or for tag characters the text they spell.
function label(p) {
  const cp = p.hidden[0];
  if (!p.tag) return name(cp) + " " + hex(cp);
  const spelled = p.hidden.filter((c) => c >= 0xe0020 && c <= 0xe007e).map((c) => String.fromCodePoint(c - 0xe0000)).join("");
  return "TAG “" + spelled + "” " + hex(cp) + (p.hidden.length > 1 ? "…" : "");
}

// context shows visible text on one line, at most n characters of it from its start (or end).
function context(text, n, fromEnd) {
  // A code point is at most two UTF-16 units: 2n units hold the n wanted.
  const part = fromEnd ? text.slice(-2 * n) : text.slice(0, 2 * n);
  let cps = [...part];
  const cut = cps.length > n || part.length < text.length;
  cps = fromEnd ? cps.slice(-n) : cps.slice(0, n);
  const s = cps.join("").replace(/\r\n|\r|\n/g, "⏎").replace(/\t/g, "⇥");
  if (!cut) return s;
  return fromEnd ? "…" + s : s + "…";
}

// render fills strip with the marks of field's text.
function render(strip, field, text) {
  const { pieces, count, more } = scan(text, MAX_MARKS);
  strip.replaceChildren();
  const head = document.createElement("span");
  head.className = "marks-head";
  head.textContent = count === 1 ? "1 hidden character:" : count + " hidden characters:";
  strip.append(head);
  pieces.forEach((p, j) => {
    if (!p.hidden) {
      // Context only next to marks: the end of the text before one, the start of the text after.
      const before = j + 1 < pieces.length || more > 0, after = j > 0;
      let s;
      if (before && after) s = p.text.length > 2 * CONTEXT ? context(p.text, CONTEXT, false) + " " + context(p.text, CONTEXT, true) : context(p.text, 2 * CONTEXT, false);
      else if (before) s = context(p.text, CONTEXT, true);
      else s = context(p.text, CONTEXT, false);
      const t = document.createElement("span");
      t.className = "marks-text";
      t.textContent = s;
      strip.append(t);
      return;
    }
    const b = document.createElement("button");
    b.type = "button";
    b.className = "mark mark-" + (p.tag ? "tag" : kind(p.hidden[0]));
    b.textContent = label(p);
    b.title = "Select this " + (p.tag ? "run of Unicode tag characters" : kind(p.hidden[0]) === "bidi" ? "bidirectional control" : "invisible character") + " in the field (then Delete removes it)";
    b.addEventListener("click", () => select(field, p.start, p.end));
    strip.append(b);
  });
  if (more > 0) {
    const m = document.createElement("span");
    m.className = "marks-more";
    m.textContent = "and " + more + " more";
    strip.append(m);
  }
}

function select(field, start, end) {
  field.focus();
  field.setSelectionRange(start, end);
}

// update draws (or removes) the strip under one field. A strip is redrawn only when the text
// changed, so the observer's own changes settle at once.
function update(field) {
  let strip = field.nextElementSibling;
  if (strip && !strip.classList.contains("marks")) strip = null;
  const text = field.value;
  if (!HIDDEN.test(text)) {
    if (strip) strip.remove();
    return;
  }
  if (strip && strip.markedText === text) return;
  if (!strip) {
    strip = document.createElement("div");
    strip.className = "marks";
    strip.setAttribute("role", "group");
    strip.setAttribute("aria-label", "Hidden characters in the field above");
    field.after(strip);
  }
  strip.markedText = text;
  render(strip, field, text);
}

// selectFirst focuses the field with id and selects its first hidden character (the caret goes
// to the start when it has none): what a hidden-unicode finding's "Go to field" does.
function selectFirst(id) {
  const field = document.getElementById(id);
  if (!field) return;
  field.focus();
  const p = scan(field.value, 1).pieces.find((p) => p.hidden);
  if (p) field.setSelectionRange(p.start, p.end);
  update(field);
}

let queued = false;
function updateAll() {
  queued = false;
  document.querySelectorAll(FIELDS).forEach(update);
  // A strip whose field a patch removed or replaced goes too.
  document.querySelectorAll(".marks").forEach((s) => {
    const f = s.previousElementSibling;
    if (!f || !f.matches(FIELDS)) s.remove();
  });
}
function queue() {
  if (!queued) {
    queued = true;
    requestAnimationFrame(updateAll);
  }
}

document.addEventListener("input", (e) => { if (e.target.matches && e.target.matches(FIELDS)) update(e.target); });
new MutationObserver(queue).observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["value"] });
queue();

window.workbenchMarks = { kind, selectFirst };
