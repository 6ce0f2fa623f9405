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
