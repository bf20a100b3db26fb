"use strict";
// Every entry comes from the live socket, already cut to what this member may see.
const me = document.getElementById("me");
const room = me.dataset.room, member = me.dataset.member, isGm = me.dataset.gm === "yes";
const log = document.getElementById("log");
const names = { gm: "GM" };
const revealed = new Set();
const shown = new Map();
let last = -1;

const inviteLink = new URLSearchParams(location.hash.slice(1)).get("invite");
if (isGm && inviteLink) {
  sessionStorage.setItem("invite-" + room, inviteLink);
  history.replaceState(null, "", location.pathname);
}
const savedInvite = sessionStorage.getItem("invite-" + room);
if (isGm && savedInvite) {
  document.getElementById("invite").value = savedInvite;
  document.getElementById("invite-box").hidden = false;
}

const LABEL = { public: "public", gm: "GM only", blind: "blind" };

function who(id) { return names[id] || id; }

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function render(entry) {
  const li = el("li");
  li.dataset.seq = entry.seq;
  li.dataset.kind = entry.kind;
  if (entry.kind === "roll") {
    const badge = el("span", "badge " + entry.visibility, revealed.has(entry.seq) ? "revealed" : LABEL[entry.visibility]);
    li.append(badge);
    li.append(el("span", "meta", who(entry.roller) + ": "));
    if (entry.redacted) {
      li.classList.add("redacted");
      li.append(el("span", "redacted", "a secret roll"));
    } else {
      li.append(el("span", "text", entry.text));
      li.append(el("span", "meta", "  (" + entry.command + ")"));
    }
    if (isGm && entry.visibility !== "public" && !revealed.has(entry.seq)) {
      const button = el("button", "reveal", "Reveal");
      button.addEventListener("click", () => reveal(entry.seq));
      li.append(" ", button);
    }
  } else if (entry.kind === "join") {
    names[entry.member] = entry.name;
    li.append(el("span", "meta", entry.name + " joined"));
  } else if (entry.kind === "room") {
    li.append(el("span", "meta", "Room “" + entry.name + "” opened"));
  } else if (entry.kind === "reveal") {
    revealed.add(entry.of);
    li.append(el("span", "meta", "The GM revealed roll #" + entry.of));
  } else {
    li.append(el("span", "meta", entry.kind));
  }
  return li;
}

function show(entry) {
  const li = render(entry);
  const old = shown.get(entry.seq);
  if (old) { old.replaceWith(li); } else { log.append(li); }
  shown.set(entry.seq, li);
  if (entry.seq > last) last = entry.seq;
  li.scrollIntoView({ block: "nearest" });
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${room}/live?after=${last}`);
  socket.addEventListener("message", (event) => show(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    if (event.code === 4401) { document.getElementById("error").textContent = "Your session has ended."; return; }
    setTimeout(connect, 1000);
  });
}

async function post(path, body) {
  const response = await fetch(`/api/rooms/${room}/${path}`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const answer = await response.json();
  document.getElementById("error").textContent = response.ok ? "" : answer.error;
  return response.ok;
}

async function reveal(seq) { await post("reveal", { seq }); }

const form = document.getElementById("roll");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  if (await post("rolls", { command: data.get("command"), visibility: data.get("visibility") })) {
    form.command.value = "";
  }
});
connect();
