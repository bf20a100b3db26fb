"use strict";
// The GM's controls: remove a member, make a new invite link, archive the room; each
// asks first. The log says what happened, for everyone.
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
  document.getElementById("archive-room").addEventListener("click", async () => {
    if (!window.confirm("Archive this room? Nobody can roll in it again; the log stays readable.")) return;
    await send("POST", "archive", {});
  });

  window.refereeAdmin = { changed };
  changed();
})();
