// Keyboard shortcuts and file dropping. Everything else is Datastar.
const typing = (el) => el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);

// The tool list is one Tab stop (a roving tabindex): only the selected row's button is
// tabbable, or the first row's when the selected tool is not listed. The rows come and go with
// patches, so the stop is set again after each change of the list.
function rove() {
  const list = document.getElementById("tool-list");
  if (!list) return;
  const picks = [...list.querySelectorAll(".tool-pick")];
  const sel = list.querySelector(".tool-row.selected .tool-pick") || picks[0];
  for (const b of picks) {
    const want = b === sel ? "0" : "-1";
    if (b.getAttribute("tabindex") !== want) b.setAttribute("tabindex", want);
    const cur = b.closest(".tool-row").classList.contains("selected");
    if (cur) b.setAttribute("aria-current", "true"); else b.removeAttribute("aria-current");
  }
}

// A focus to give once a patch brings it: the list's selected row after a step the server
// answers, or an editor field once the next tool's editor arrives. It lapses after a while, so
// that a step that went nowhere does not pull focus later.
let pending = null;
function want(kind, from, id) { pending = { kind, from, id, until: performance.now() + 3000 }; }
function settle() {
  if (!pending) return;
  if (performance.now() > pending.until) { pending = null; return; }
  if (pending.kind === "list") {
    const b = document.querySelector("#tool-list .tool-row.selected .tool-pick");
    if (b && b.dataset.index !== pending.from) { pending = null; b.focus(); b.scrollIntoView({ block: "nearest" }); }
  } else {
    const form = document.querySelector("[data-testid=editor-form]");
    const f = document.getElementById(pending.id);
    if (form && f && form.dataset.tool !== pending.from) { pending = null; f.focus(); }
  }
}
new MutationObserver(() => { rove(); settle(); }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["class", "data-tool"] });
rove();

// step asks the server for the next, previous, first or last tool the search matches.
function step(which) {
  const b = document.querySelector("#tool-list [data-step=" + which + "]");
  if (b) b.click();
}

// pickTool moves the selection one tool on or back. From the list, focus moves with it; from
// the editor it stays in the same field of the next tool's editor (Alt+Down in the description
// keeps typing in descriptions).
function pickTool(dir) {
  const rows = [...document.querySelectorAll("#tool-list .tool-row")];
  const selRow = document.querySelector("#tool-list .tool-row.selected");
  const from = selRow ? selRow.querySelector(".tool-pick").dataset.index : String(-1);
  const a = document.activeElement;
  const field = a && a.closest && a.closest("#editor") && a.id ? a.id : "";
  if (field) want("field", document.querySelector("[data-testid=editor-form]")?.dataset.tool, field);
  else want("list", from);
  const i = rows.indexOf(selRow);
  const next = i < 0 ? null : rows[i + dir];
  if (!next) { step(dir > 0 ? "next" : "prev"); return; }
  next.querySelector(".tool-pick").click();
  next.scrollIntoView({ block: "nearest" });
  settle();
}

// Keys inside the list: arrows, Home and End move the selection; Enter goes to the editor.
function listKey(e) {
  const b = e.target.closest && e.target.closest("#tool-list .tool-pick");
  if (!b || e.altKey || e.ctrlKey || e.metaKey) return false;
  const from = b.dataset.index;
  if (e.key === "ArrowDown" || e.key === "ArrowUp") pickTool(e.key === "ArrowDown" ? 1 : -1);
  else if (e.key === "Home" || e.key === "End") { want("list", from); step(e.key === "Home" ? "first" : "last"); }
  else if (e.key === "Enter") {
    const form = document.querySelector("[data-testid=editor-form]");
    if (form && form.dataset.tool === from) document.getElementById("f-name")?.focus();
    else { want("field", form?.dataset.tool, "f-name"); b.click(); }
  } else return false;
  e.preventDefault();
  return true;
}

// The skip link goes to the editor's first field.
document.addEventListener("click", (e) => {
  if (!e.target.closest || !e.target.closest(".skip-link")) return;
  const f = document.getElementById("f-name") || document.getElementById("editor");
  if (!f) return;
  e.preventDefault();
  if (f.id === "editor") f.setAttribute("tabindex", "-1");
  f.focus();
});

// The tool list's width: a drag handle (or its arrow keys) sets it; the browser remembers it.
const TOOLS_W = "workbench.toolsWidth";
function toolsWidth(px) {
  const w = Math.round(Math.min(Math.max(px, 160), Math.min(640, window.innerWidth * 0.6)));
  document.documentElement.style.setProperty("--tools-w", w + "px");
  try { localStorage.setItem(TOOLS_W, String(w)); } catch (_) { /* private mode: not remembered */ }
}
try { const w = Number(localStorage.getItem(TOOLS_W)); if (w > 0) document.documentElement.style.setProperty("--tools-w", w + "px"); } catch (_) { /* none */ }
const handle = document.querySelector(".tools-resize");
if (handle) {
  const pane = handle.closest(".tools-pane");
  handle.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    const left = pane.getBoundingClientRect().left;
    const move = (m) => toolsWidth(m.clientX - left);
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", () => handle.removeEventListener("pointermove", move), { once: true });
  });
  handle.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    e.preventDefault();
    toolsWidth(pane.getBoundingClientRect().width + (e.key === "ArrowRight" ? 24 : -24));
  });
}

let findingAt = -1;
function nextFinding(step) {
  const tab = document.querySelector("#panel-tabs button");
  if (tab) tab.click(); // show the findings panel
  const links = [...document.querySelectorAll("#findings .finding")].filter((f) => f.offsetParent !== null);
  if (!links.length) return;
  findingAt = (findingAt + step + links.length) % links.length;
  const f = links[findingAt];
  f.scrollIntoView({ block: "nearest" });
  (f.querySelector(".goto") || f.querySelector("a")).focus();
}

// A tab row ([role=tablist]) is one stop for Tab; the arrow keys, Home and End move along it and
// show the tab reached (the ARIA tabs pattern). Tabs are found in the row, so a tab that a
// patch re-renders (the counts) or one added later takes part without registering.
function moveTab(e) {
  const list = e.target.closest("[role=tablist]");
  if (!list || e.target.getAttribute("role") !== "tab" || e.altKey || e.ctrlKey || e.metaKey) return false;
  const tabs = [...list.querySelectorAll("[role=tab]")].filter((b) => !b.disabled);
  const i = tabs.indexOf(e.target);
  let j;
  if (e.key === "ArrowRight" || e.key === "ArrowDown") j = (i + 1) % tabs.length;
  else if (e.key === "ArrowLeft" || e.key === "ArrowUp") j = (i - 1 + tabs.length) % tabs.length;
  else if (e.key === "Home") j = 0;
  else if (e.key === "End") j = tabs.length - 1;
  else return false;
  e.preventDefault();
  tabs[j].click();
  tabs[j].focus();
  return true;
}

document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (moveTab(e) || listKey(e)) return;
  if (e.altKey && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
    e.preventDefault();
    pickTool(e.key === "ArrowDown" ? 1 : -1);
  } else if (e.altKey && (e.key === "d" || e.key === "D" || e.code === "KeyD")) {
    const d = document.getElementById("f-desc");
    if (d) { e.preventDefault(); d.focus(); }
  } else if (t && t.id === "tool-q" && e.key === "ArrowDown") {
    // From the search box down into the list's stop.
    const b = document.querySelector("#tool-list .tool-pick[tabindex='0']");
    if (b) { e.preventDefault(); b.focus(); }
  } else if (e.altKey && (e.key === "f" || e.key === "F" || e.code === "KeyF")) {
    e.preventDefault();
    nextFinding(e.shiftKey ? -1 : 1);
  } else if (!typing(t) && !e.ctrlKey && !e.metaKey && !e.altKey) {
    if (e.key === "j" || e.key === "]") pickTool(1);
    else if (e.key === "k" || e.key === "[") pickTool(-1);
    else if (e.key === "f") nextFinding(1);
  } else if (!typing(t) && (e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") {
    const b = document.querySelector(e.shiftKey ? "[data-testid=redo]" : "[data-testid=undo]");
    if (b && !b.disabled) { e.preventDefault(); b.click(); }
  }
});

// Dropping a file on the paste box reads it into the box.
const paste = document.getElementById("paste");
if (paste) {
  paste.addEventListener("dragover", (e) => { e.preventDefault(); paste.classList.add("dragover"); });
  paste.addEventListener("dragleave", () => paste.classList.remove("dragover"));
  paste.addEventListener("drop", (e) => {
    e.preventDefault();
    paste.classList.remove("dragover");
    const f = e.dataTransfer.files[0];
    if (f) f.text().then((s) => { paste.value = s; });
  });
}

// Export menu "Copy": fetch the same URL the form's Download would, and put the answer on the
// clipboard. The URL comes from the form (a server-made action plus its fields); nothing is read
// from attribute text. Errors come back as plain text and are shown as text.
const exportStatus = (msg, bad) => {
  const s = document.getElementById("export-status");
  if (!s) return;
  s.textContent = msg;
  s.classList.toggle("bad", !!bad);
};
document.addEventListener("click", (e) => {
  const b = e.target.closest("[data-copy]");
  if (!b || !b.form) return;
  e.preventDefault();
  const f = b.form;
  if (!navigator.clipboard) {
    exportStatus("This browser allows copying only on https or localhost pages; use Download instead.", true);
    return;
  }
  const url = f.action + "?" + new URLSearchParams(new FormData(f)).toString();
  const text = fetch(url, { headers: { Accept: "text/plain" }, credentials: "same-origin" }).then(async (r) => {
    const body = await r.text();
    if (!r.ok) throw new Error(body || r.statusText);
    return body;
  });
  exportStatus("Copying…");
  // A ClipboardItem holding a promise keeps the click's permission across the fetch (Safari
  // needs that); browsers without it get writeText after the fetch.
  let copied;
  if (window.ClipboardItem) {
    copied = navigator.clipboard.write([new ClipboardItem({ "text/plain": text.then((t) => new Blob([t], { type: "text/plain" })) })])
      .catch(() => text.then((t) => navigator.clipboard.writeText(t)));
  } else {
    copied = text.then((t) => navigator.clipboard.writeText(t));
  }
  Promise.all([copied, text]).then(([, t]) => exportStatus("Copied " + t.length.toLocaleString() + " characters."),
    (err) => exportStatus("Not copied: " + (err && err.message ? err.message : String(err)), true));
});

// Issue 21, point 8: the export menu checks the Go options as they are typed and says what to
// change next to them, and Download fetches the file from here, so that a refusal (a listing
// go-sdk would refuse, an option the server refuses) is told in the menu instead of replacing
// the workspace with an error page. The server checks the same options (web/export.go).
const goKeywords = new Set(["break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for", "func",
  "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select", "struct", "switch", "type", "var"]);
const goFormProblem = (f) => {
  const name = f.elements.namedItem("package").value.trim();
  if (name !== "" && (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) || name === "_" || goKeywords.has(name))) {
    return "The package name must be a Go identifier that is not a keyword (letters, digits and _, not starting with a digit), such as tools.";
  }
  if (f.elements.namedItem("main").checked && name !== "" && name !== "main") {
    return "With “main” the file is a runnable server, whose package is main: clear the package name, or untick “with main”.";
  }
  return "";
};
const checkGoForm = (f) => {
  const msg = goFormProblem(f);
  const pkg = f.elements.namedItem("package");
  pkg.setCustomValidity(msg);
  pkg.placeholder = f.elements.namedItem("main").checked ? "main" : "tools";
  const p = f.querySelector("#export-go-problem");
  if (p) {
    p.textContent = msg;
    p.hidden = msg === "";
  }
  return msg === "";
};
const goForm = (el) => (el && el.form && el.form.matches("[data-testid=export-go]") ? el.form : null);
for (const type of ["input", "change"]) {
  document.addEventListener(type, (e) => {
    const f = goForm(e.target);
    if (f) checkGoForm(f);
  });
}
// Copy with options the server would refuse: say why here rather than ask.
document.addEventListener("click", (e) => {
  const b = e.target.closest("[data-copy]");
  const f = goForm(b);
  if (f && !checkGoForm(f)) {
    e.preventDefault();
    e.stopImmediatePropagation();
    exportStatus("Not copied: " + goFormProblem(f), true);
    f.elements.namedItem("package").focus();
  }
}, true);
document.addEventListener("submit", (e) => {
  const f = e.target;
  if (!f.matches(".export-form")) return;
  e.preventDefault();
  if (f.matches("[data-testid=export-go]") && !checkGoForm(f)) {
    f.elements.namedItem("package").focus();
    return;
  }
  const url = f.action + "?" + new URLSearchParams(new FormData(f)).toString();
  exportStatus("Preparing the download…");
  fetch(url, { headers: { Accept: "text/plain" }, credentials: "same-origin" }).then(async (r) => {
    if (!r.ok) throw new Error((await r.text()) || r.statusText);
    const name = /filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "");
    const a = document.createElement("a");
    a.href = URL.createObjectURL(await r.blob());
    a.download = name ? name[1] : "export";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    exportStatus("Downloaded " + a.download + ".");
  }).catch((err) => exportStatus("Not downloaded: " + (err && err.message ? err.message : String(err)), true));
});
// Issue 21 (10f): a paste that could not be read comes back with the caret on the error. The
// server gives the line and the column in characters (code points); the box counts UTF-16 units.
if (paste && paste.dataset.errorAt) {
  const [line, col] = paste.dataset.errorAt.split(":").map(Number);
  const lines = paste.value.split("\n");
  let at = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
  const chars = [...(lines[line - 1] || "")];
  at += chars.slice(0, col - 1).join("").length;
  paste.focus();
  paste.setSelectionRange(at, at + (chars[col - 1] || "").length);
  const lh = parseFloat(getComputedStyle(paste).lineHeight) || 16;
  paste.scrollTop = Math.max(0, (line - 1) * lh - paste.clientHeight / 2);
}

// Issue 21 (10a): an anonymous person is asked for a name at their first edit, once (the
// browser remembers that it asked). The box never takes the focus; its answer is posted as the
// header's name form posts it, and the page goes on without reloading.
const nameAsk = document.getElementById("name-ask");
if (nameAsk) {
  const key = "workbench.name-asked";
  const asked = () => { try { return localStorage.getItem(key) === "1"; } catch { return false; } };
  const onEdit = (e) => {
    if (!e.target.closest || !e.target.closest(".editor-pane, #tasks, .tools-pane")) return;
    document.removeEventListener("input", onEdit, true);
    document.removeEventListener("change", onEdit, true);
    if (asked()) return;
    try { localStorage.setItem(key, "1"); } catch { /* private mode: asked once per page */ }
    nameAsk.hidden = false;
  };
  document.addEventListener("input", onEdit, true);
  document.addEventListener("change", onEdit, true);
  const form = nameAsk.querySelector("form");
  const problem = nameAsk.querySelector(".name-ask-problem");
  nameAsk.querySelector("[data-name-ask-close]").addEventListener("click", () => { nameAsk.hidden = true; });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = form.elements.name.value.trim();
    fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin", redirect: "manual" })
      .then(async (r) => {
        // The answer is a redirect back to the page (opaque here); an error is plain text.
        if (r.type !== "opaqueredirect" && !r.ok) throw new Error((await r.text()) || r.statusText);
        const box = document.getElementById("display-name");
        if (box) box.value = name;
        nameAsk.hidden = true;
      })
      .catch((err) => { problem.textContent = "Not saved: " + (err && err.message ? err.message : String(err)); problem.hidden = false; });
  });
}

// Issue 21, point 10 (History): a revision's time in the reader's time zone, and how long ago
// when it is recent; its exact UTC time stays the element's datetime and title. The server
// writes it in UTC, which is what shows without this script.
function localTimes(root) {
  const now = new Date();
  const yesterday = new Date(now.getTime() - 86400000);
  for (const t of root.querySelectorAll("time.rev-time[datetime]")) {
    const d = new Date(t.dateTime);
    if (isNaN(d)) continue;
    const mins = (now - d) / 60000;
    const hm = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    let text;
    if (mins < 1) text = "just now";
    else if (mins < 60) text = `${Math.floor(mins)} min ago`;
    else if (d.toDateString() === now.toDateString()) text = `today ${hm}`;
    else if (d.toDateString() === yesterday.toDateString()) text = `yesterday ${hm}`;
    else {
      const year = d.getFullYear() === now.getFullYear() ? undefined : "numeric";
      text = `${d.toLocaleDateString([], { day: "numeric", month: "short", year })}, ${hm}`;
    }
    // Only when it differs: the observer below sees this write, and stops at the second pass.
    if (t.textContent !== text) t.textContent = text;
  }
}
const historyPanel = document.getElementById("tp-history");
if (historyPanel) {
  new MutationObserver(() => localTimes(historyPanel)).observe(historyPanel, { childList: true, subtree: true });
  setInterval(() => localTimes(historyPanel), 30000);
}
