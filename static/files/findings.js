// The findings panel follows the selected tool. Datastar marks the selected tool's group
// (.fgroup.current, from $tool); when the selection moves to another tool, this scrolls that group
// into view within the panel's own scrolling pane, never the page (on a phone the panel is far
// down the page, and picking a tool must not jump there). A patch that re-renders the same
// group, as typing does, leaves the panel where the reader put it.

let followed = null; // the id of the group last scrolled to

// scroller is the nearest ancestor of el that scrolls by itself, or null for the page.
function scroller(el) {
  for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if ((o === "auto" || o === "scroll") && p.scrollHeight > p.clientHeight) return p;
  }
  return null;
}

function follow() {
  const g = document.querySelector("#findings .fgroup.current");
  const id = g ? g.id : null;
  // A hidden panel has no layout to scroll: try again when it shows.
  if (!g || g.offsetParent === null) {
    if (!g) followed = null;
    return;
  }
  if (id === followed) return;
  followed = id;
  const box = scroller(g);
  if (!box) return;
  const b = box.getBoundingClientRect(), r = g.getBoundingClientRect();
  // Below the pane's sticky tab row, which covers the pane's top.
  const tabs = box.querySelector(".tabs");
  const top = b.top + (tabs && getComputedStyle(tabs).position === "sticky" ? tabs.offsetHeight : 0);
  if (r.top < top || r.bottom > b.bottom) box.scrollTop += r.top - top - 8;
}

let queued = false;
new MutationObserver(() => {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => { queued = false; follow(); });
}).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ["class", "style"], childList: true });
