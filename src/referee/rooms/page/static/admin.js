"use strict";
// The GM's controls: remove a member, make a new invite link, show a new GM token,
// archive the room; each asks first. The log says what happened, for everyone.
(function () {
  const room = document.getElementById("me").dataset.room;
  const list = document.getElementById("member-admin");
  const note = document.getElementById("admin-note");

  async function send(method, path, body) {
    const response = await fetch(`/api/rooms/${room}/${path}`, {
      method, headers: { "Content-Type": "application/json" }, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (window.refereeRoom.refused(response)) return null;
    const answer = await response.json();
    note.textContent = response.ok ? "" : answer.error;
    return response.ok ? answer : null;
  }

  function changed() {
    const { names, gone, who } = window.refereeRoom;
    list.replaceChildren();
    for (const id of Object.keys(names).filter((m) => m !== "gm" && !gone.has(m))) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "write";
      button.disabled = window.refereeRoom.readOnly();
      button.textContent = "Remove";
      button.setAttribute("aria-label", `Remove ${who(id)} from the room`);
      button.addEventListener("click", async () => {
        if (!window.confirm(`Remove ${who(id)}? Their link and page stop working at once.`)) return;
        await send("DELETE", `members/${encodeURIComponent(id)}`);
      });
      item.append(who(id) + " ", button);
      list.append(item);
    }
  }

  document.getElementById("new-invite").addEventListener("click", async () => {
    if (!window.confirm("Make a new invite link? The old one stops working.")) return;
    const answer = await send("POST", "invite", {});
    if (!answer) return;
    const link = `${location.origin}/rooms/${room}/join#invite=${encodeURIComponent(answer.invite)}`;
    sessionStorage.setItem("invite-" + room, link);
    document.getElementById("invite").value = link;
    document.getElementById("invite-box").hidden = false;
    note.textContent = "New invite link made: send it to your players.";
  });
  // The server keeps only a token's hash, so showing the GM's token makes a new one: the
  // old one stops working everywhere (scripts, other browsers, Discord links); this
  // page's own session goes on. The token is shown until hidden, and never kept.
  const tokenBox = document.getElementById("token-box");
  const tokenValue = document.getElementById("gm-token-value");
  const tokenNote = document.getElementById("token-note");
  document.getElementById("gm-token").addEventListener("click", async () => {
    if (!window.confirm(
      "Show your GM token? The server keeps only its fingerprint, so this makes a new one, "
      + "and the old one stops working at once: in your scripts, in your other browsers, and "
      + "in every Discord channel linked with it (link them again with the new one). "
      + "This page goes on.")) return;
    const answer = await send("POST", "token", {});
    if (!answer) return;
    tokenValue.value = answer.token;
    tokenNote.textContent = "";
    tokenBox.hidden = false;
    note.textContent = "New GM token made: the old one no longer works.";
  });
  document.getElementById("copy-token").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(tokenValue.value); } catch { tokenValue.select(); document.execCommand("copy"); }
    tokenNote.textContent = "Copied.";
  });
  document.getElementById("hide-token").addEventListener("click", () => {
    tokenValue.value = "";
    tokenBox.hidden = true;
  });
  document.getElementById("archive-room").addEventListener("click", async () => {
    if (!window.confirm("Archive this room? Nobody can roll in it again; the log stays readable.")) return;
    await send("POST", "archive", {});
  });

  window.refereeAdmin = { changed };
  changed();
})();
