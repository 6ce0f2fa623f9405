// Keyboard shortcuts and file dropping. Everything else is Datastar.
const typing = (el) => el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);

function pickTool(step) {
  const rows = [...document.querySelectorAll("#tool-list .tool-row")];
  if (!rows.length) return;
  let i = rows.findIndex((r) => r.classList.contains("selected"));
  // A long listing lists its first tools only: past them (or stepping off the last one) the
  // list's notice moves the selection by one.
  const more = document.getElementById("tool-more");
  if (more && (i < 0 || (i === rows.length - 1 && step > 0))) {
    more.querySelector(step > 0 ? "[data-step=next]" : "[data-step=prev]").click();
    more.scrollIntoView({ block: "nearest" });
    return;
  }
  i = i < 0 ? 0 : Math.min(rows.length - 1, Math.max(0, i + step));
  const btn = rows[i].querySelector(".tool-pick");
  btn.click();
  btn.focus();
  rows[i].scrollIntoView({ block: "nearest" });
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
  if (moveTab(e)) return;
  if (e.altKey && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
    e.preventDefault();
    pickTool(e.key === "ArrowDown" ? 1 : -1);
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
