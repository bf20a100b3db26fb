"use strict";
const form = document.getElementById("create");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const body = { name: data.get("name"), system: data.get("system") || null };
  const response = await fetch("/api/rooms", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) { document.getElementById("error").textContent = answer.error; return; }
  const invite = new URL(`/rooms/${answer.room}/join`, location.href);
  invite.hash = "invite=" + encodeURIComponent(answer.invite);
  document.getElementById("invite").value = invite.href;
  const open = document.getElementById("open");
  open.href = answer.url + "#invite=" + encodeURIComponent(invite.href);
  document.getElementById("made").hidden = false;
});
