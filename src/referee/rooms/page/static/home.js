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
  document.getElementById("gm-token-value").value = answer.token;
  document.getElementById("made").hidden = false;
});
// The GM's token stays folded away until asked for; Copy puts it on the clipboard.
document.getElementById("copy-token").addEventListener("click", async () => {
  const input = document.getElementById("gm-token-value");
  try { await navigator.clipboard.writeText(input.value); } catch { input.select(); document.execCommand("copy"); }
  document.getElementById("token-note").textContent = "Copied.";
});
