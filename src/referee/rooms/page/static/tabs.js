"use strict";
// On a phone the room is three tabs (Log, Character, Fight) over a roll bar fixed at
// the bottom; on a wider screen the tabs are hidden and the panes stand side by side.
// "Fair dice" is open on a member's first visit to a room and folded on the next ones.
(() => {
  const tabs = [...document.querySelectorAll("#tabs [role=tab]")];
  function select(tab, focus) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).classList.toggle("active", on);
    }
    if (focus) tab.focus();
    // A new tab starts at its top, just under the tab bar (not where the last one was).
    const bar = document.getElementById("tabs");
    const top = document.getElementById("panes").getBoundingClientRect().top + window.scrollY;
    if (window.scrollY > top - bar.offsetHeight) window.scrollTo(0, top - bar.offsetHeight);
  }
  for (const tab of tabs) {
    tab.addEventListener("click", () => select(tab, false));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      select(tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length], true);
      event.preventDefault();
    });
  }
  const room = document.getElementById("me").dataset.room;
  const fairness = document.getElementById("fairness");
  if (localStorage.getItem("referee-seen-" + room)) fairness.open = false;
  localStorage.setItem("referee-seen-" + room, "1");
})();
