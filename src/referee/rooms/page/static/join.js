"use strict";
const form = document.getElementById("join");
const invite = new URLSearchParams(location.hash.slice(1)).get("invite") || "";
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const room = form.dataset.room;
  const body = { name: new FormData(form).get("name"), invite };
  const response = await fetch(`/api/rooms/${room}/members`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) { document.getElementById("error").textContent = answer.error; return; }
  location.href = answer.url;
});
