"use strict";
// Every entry comes from the live socket, already cut to what this member may see.
const me = document.getElementById("me");
const room = me.dataset.room, member = me.dataset.member, isGm = me.dataset.gm === "yes";
const log = document.getElementById("log");
const names = { gm: "GM" };
const sheetNames = {};  // a sheet's name at the table (@orc) -> its character's name
const revealed = new Set();
const shown = new Map();
const entries = [];  // the log as this member sees it, by seq (revealed rolls replaced whole)
window.refereeEntries = entries;
let last = -1;

// A page that may no longer write: an archived room (read only, for everyone), or a
// session that ended (the GM removed this member, or the token stopped working). The
// write controls carry the class "write": the style sheet hides them then, and they
// are disabled too (those made later, such as Reveal buttons, are made disabled).
const frame = document.getElementById("room");
const readOnly = () => frame.classList.contains("archived") || frame.classList.contains("ended");
const WRITES = "button.write, .write button, .write input, .write select, button.trait";
function lockWrites() {
  for (const node of frame.querySelectorAll(WRITES)) node.disabled = true;
}
function archived() {
  frame.classList.add("archived");
  document.getElementById("archived").hidden = false;
  lockWrites();
}
let socket = null, presenceTimer = null;
function endSession(removed) {
  if (frame.classList.contains("ended")) return;
  frame.classList.add("ended");
  const box = document.getElementById("ended");
  box.replaceChildren(
    el("p", "", removed
      ? "You were removed from this room by the GM."
      : "Your session in this room has ended: this page can no longer roll or read the room (the GM may have removed you)."),
    el("p", "", "What you saw stays below. Ask the GM for a new invite to come back to the table."),
  );
  box.hidden = false;
  document.getElementById("error").textContent = "";
  for (const node of frame.querySelectorAll("button, input, select, textarea")) node.disabled = true;
  clearInterval(presenceTimer);
  clearTimeout(autoSeed);
  if (socket) socket.close();
}
// A call answered 401: this member's token no longer works (true), and the page says so.
// The socket tells why a moment later (4401 "removed from the room", or the leave entry):
// the controls are locked at once, and the page waits for it before it says "ended".
function refused(response) {
  if (response.status !== 401) return false;
  lockWrites();
  setTimeout(() => endSession(false), 2000);
  return true;
}

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
// Who rolled, as the table knows them: a roll made as a sheet is the character's (an
// NPC's roll shows the NPC, not "GM"); a player's character also names the player.
function rollerName(entry) {
  if (!entry.sheet) return who(entry.roller);
  const character = sheetNames[entry.sheet] || "@" + entry.sheet;
  return entry.roller === "gm" ? character : `${character} (${who(entry.roller)})`;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A roll's dice as faces (3d6 as three dice, 4dF as + / − / blank) and its outcome as a
// colour; the text stays for screen readers, so the dice are hidden from them.
const FUDGE = { "1": "+", "-1": "−", "0": " ", "+": "+", "-": "−" };
function diceOf(result) {
  if (Array.isArray(result)) return result.flatMap(diceOf);
  if (!result || !Array.isArray(result.dice)) return [];
  return result.dice.map((d) => {
    if (d !== null && typeof d === "object") {
      const fudge = /dF/i.test(d.pool || "");
      return { face: fudge ? FUDGE[String(d.value)] : String(d.value), dropped: d.kept === false, fudge };
    }
    const fudge = typeof d === "string";
    return { face: fudge ? FUDGE[d] ?? d : String(d), dropped: false, fudge };
  });
}
function outcomeOf(result) {
  if (!result || Array.isArray(result) || typeof result.success !== "boolean") return null;
  const critical = result.critical === true || result.critical === "success" || result.critical === "failure";
  return (critical ? "critical-" : "") + (result.success ? "success" : "failure");
}
function diceNode(result) {
  const faces = diceOf(result);
  if (!faces.length) return null;
  const box = el("span", "dice");
  box.setAttribute("aria-hidden", "true");
  for (const d of faces.slice(0, 60)) {
    box.append(el("span", "die" + (d.fudge ? " fudge" : "") + (d.dropped ? " dropped" : ""), d.face));
  }
  return box;
}

// An exchange (gurps attack --vs @orc) as its steps, one line each with its dice and
// odds: attack, defense, location and damage, then the calls (from the result; its
// text says the same on one line).
const OUTCOME = { injures: "injures", "no injury": "hits, but DR stops it", defended: "defended", misses: "misses" };
function exchangeNodes(x) {
  const pct = (p) => { const [a, b] = String(p).split("/").map(Number); return (100 * a / (b || 1)).toFixed(1) + "%"; };
  const rolled = (dice) => `rolled ${dice.reduce((s, n) => s + n, 0)} (${dice.join(", ")})`;
  const head = el("span", "text", `${x.attack.label}: ${OUTCOME[x.outcome] || x.outcome} (${pct(x.chance_to_injure)} to injure)`);
  const steps = el("ol", "steps");
  steps.setAttribute("aria-label", "The exchange, step by step");
  const step = (what, result, text, cls) => {
    const item = el("li", cls);
    item.append(el("strong", "", what + ": "));
    const dice = result && diceNode(result);
    if (dice) item.append(dice, " ");
    const chart = result && window.refereeChart && window.refereeChart(result);
    if (chart) item.append(chart);
    item.append(text);
    steps.append(item);
  };
  step("Attack", x.attack, x.attack.text);
  if (x.defense) step("Defense", x.defense, `${x.target} ${x.defense.success ? "defends" : "fails to defend"}: ${x.defense.text}`);
  const d = x.damage;
  if (d) {
    let text = `hits the ${d.location}${d.location_roll ? " (" + rolled(d.location_roll) + ")" : ""}; ` +
      `${d.expression} ${d.type} vs DR ${d.dr}, ${pct(d.odds.penetrates)} to penetrate: ${rolled(d.dice)}`;
    if (d.effect && d.effect !== "normal" && d.effect !== "drop") text += ", " + d.effect.replace(/_/g, " ");
    text += `, basic ${d.basic}` + (d.penetrating ? `, ${d.penetrating} penetrates: injury ${d.injury}` : ", stopped by DR: no injury");
    if (typeof x.hp_after === "number" && d.injury) text += ` (${x.target} ${x.hp_after + d.injury} → ${x.hp_after} HP)`;
    step("Damage", { dice: d.dice }, text);
  }
  for (const call of x.calls || []) step("Next", null, call, "calls");
  return [head, steps, ...oddsNodes(x.odds || {}, x.target, pct)];
}

// An exchange's odds before the roll (gurps odds attack's): each step's chance.
function oddsNodes(o, target, pct) {
  if (o.hit === undefined) return [];
  const box = el("details", "odds");
  box.append(el("summary", "meta", "Odds before the roll"));
  const list = el("ul", "steps");
  const line = (text) => list.append(el("li", "", text));
  line(`hits ${pct(o.hit)} (critical ${pct(o.critical_hit)})`);
  if (o.defense) line(`${target}'s ${o.defense} ${o.defense_level} defends ${pct(o.defended)}`);
  if ((o.locations || []).length > 1) line("lands on the " + o.locations.map(([k, p]) => `${k} ${pct(p)}`).join(", "));
  const [num, den] = String(o.mean_injury || "0").split("/").map(Number);
  const mean = num / (den || 1);
  line(`injures ${pct(o.injures)}, mean injury ${mean.toFixed(2)}; major wound ${pct(o.major_wound)}, knockdown roll ${pct(o.knockdown)}, crippled ${pct(o.crippled)}`);
  if (o.hp) {
    const crossed = o.hp.thresholds.filter(([, p]) => p !== "0").map(([k, p]) => `${k}×HP ${pct(p)}`);
    line([`reeling ${pct(o.hp.reeling)}`, `0 HP or less ${pct(o.hp.zero_hp)}`, ...crossed].join(", "));
  }
  box.append(list);
  return [box];
}

// The command as typed; what the engine ran (a sheet's traits as numbers) on demand.
function commandNode(entry) {
  if (!entry.resolved || entry.resolved === entry.command) return el("span", "meta", "(" + entry.command + ")");
  const box = el("details", "resolved");
  box.append(el("summary", "meta", entry.command), el("code", "", entry.resolved));
  return box;
}

function render(entry) {
  const li = el("li");
  li.dataset.seq = entry.seq;
  li.dataset.kind = entry.kind;
  li.id = "entry-" + entry.seq;
  li.append(el("span", "seq", "#" + entry.seq));
  if (entry.kind === "roll") {
    const badge = el("span", "badge " + entry.visibility, revealed.has(entry.seq) ? "revealed" : LABEL[entry.visibility]);
    li.append(badge);
    li.append(el("span", "meta roller", rollerName(entry) + ": "));
    if (entry.redacted) {
      li.classList.add("redacted");
      li.append(el("span", "redacted", "a secret roll"));
    } else {
      const dice = diceNode(entry.result);
      if (dice) li.append(dice, " ");
      const chart = window.refereeChart && window.refereeChart(entry.result);
      if (chart) li.append(chart);
      const outcome = outcomeOf(entry.result);
      if (outcome) li.dataset.outcome = outcome;
      if (entry.result && entry.result.kind === "exchange") li.append(...exchangeNodes(entry.result));
      else li.append(el("span", "text", entry.text));
      li.append(" ", commandNode(entry));
      const apply = isGm && window.refereeFight && window.refereeFight.applyButton(entry);
      if (apply) li.append(" ", apply);
    }
    if (isGm && entry.visibility !== "public" && !revealed.has(entry.seq)) {
      const button = el("button", "reveal write", "Reveal");
      button.disabled = readOnly();
      button.addEventListener("click", () => reveal(entry.seq));
      li.append(" ", button);
    }
  } else if (entry.kind === "join") {
    names[entry.member] = entry.name;
    li.append(el("span", "meta", entry.name + " joined"));
    showMembers();
    if (window.refereeAdmin) window.refereeAdmin.changed();
    clearTimeout(presenceSoon);
    presenceSoon = setTimeout(presence, 1000);
  } else if (entry.kind === "leave") {
    li.append(el("span", "meta", who(entry.member) + " was removed from the room"));
    gone.add(entry.member);
    showMembers();
    if (entry.member === member) endSession(true);
    if (window.refereeAdmin) window.refereeAdmin.changed();
  } else if (entry.kind === "invite") {
    li.append(el("span", "meta", "The GM made a new invite link (the old one no longer works)"));
  } else if (entry.kind === "token") {
    li.append(el("span", "meta", "The GM made a new GM token (the old one no longer works)"));
  } else if (entry.kind === "archive") {
    li.append(el("span", "meta", "The GM archived the room"));
    archived();
  } else if (entry.kind === "sheet" && entry.redacted) {
    li.append(el("span", "meta", "The GM prepared a sheet of their own"));  // v1.3: the GM's
  } else if (entry.kind === "sheet") {
    const whose = entry.owner === "gm" ? "the GM" : who(entry.owner);
    sheetNames[entry.sheet] = entry.name;
    li.append(el("span", "meta", `${entry.name} (${entry.system}) is at the table as @${entry.sheet}, ${whose}'s`));
    if (window.refereeCharacters) window.refereeCharacters.changed();
  } else if (entry.kind === "room") {
    li.append(el("span", "meta", "Room “" + entry.name + "” opened"));
  } else if (entry.kind === "reveal") {
    revealed.add(entry.of);
    const link = el("a", "", "roll #" + entry.of);
    link.href = "#entry-" + entry.of;
    li.append(el("span", "meta", "The GM revealed "), link);
  } else if (entry.kind === "epoch") {
    li.append(el("span", "meta", "Epoch " + entry.epoch + " begins: the server committed to its seeds"));
  } else if (entry.kind === "seed") {
    li.append(el("span", "meta", who(entry.member) + " sent a client seed for epoch " + entry.epoch));
  } else if (entry.kind === "lock") {
    const n = Object.keys(entry.seeds).length;
    li.append(el("span", "meta", "Epoch " + entry.epoch + " locked with " + n + " player seed" + (n === 1 ? "" : "s")));
  } else if (entry.kind === "close") {
    const closer = entry.by === "server"
      ? "A player's seed came after its lock: the server closed epoch "
      : "The GM closed epoch ";
    li.append(el("span", "meta", closer + entry.epoch + (entry.seeds.secret ? " and revealed both seeds" : " and revealed its public seed")));
  } else if (entry.kind === "declassify") {
    li.append(el("span", "meta", "The GM revealed the secret seed of epoch " + entry.epoch));
  } else if (entry.kind === "head") {
    li.append(el("span", "meta", "The server signed the log up to #" + entry.over));
  } else if (window.refereeFight && window.refereeFight.kinds.has(entry.kind)) {
    li.append(...window.refereeFight.line(entry));
    window.refereeFight.changed();
  } else {  // a fight entry before the fight's script is ready, or a kind unknown here
    const plain = { combatant: "Someone joined the fight", change: "A change in the fight", turn: "The turn moved" };
    li.append(el("span", "meta", plain[entry.kind] || "An entry of kind “" + entry.kind + "”"));
  }
  return li;
}

// Who is at the table (the log's join entries), and who has the room open now.
let here = new Set(), presenceSoon = null;
const gone = new Set();  // members the GM removed
function showMembers() {
  const list = document.getElementById("members");
  if (!list) return;
  const ids = ["gm", ...Object.keys(names).filter((id) => id !== "gm" && !gone.has(id))];
  list.textContent = ids.map((id) => (id === "gm" ? "the GM" : who(id)) + (here.has(id) ? " (here now)" : "")).join(", ");
}
async function presence() {
  try {
    const response = await fetch(`/api/rooms/${room}/present`, { credentials: "same-origin" });
    if (response.ok) { here = new Set((await response.json()).members); showMembers(); } else refused(response);
  } catch (error) { /* the next poll tries again */ }
}
presenceTimer = setInterval(presence, 15000);
setTimeout(presence, 500);

function track(entry) {
  entries[entry.seq] = entry;
  const text = (id, value) => { const node = document.getElementById(id); if (node) node.textContent = value; };
  if (entry.kind === "epoch") {
    text("epoch-number", entry.epoch);
    text("commit-public", entry.commitments.public);
    text("commit-secret", entry.commitments.secret);
    text("mix", "not locked yet");
    text("mix-note", "");
    text("seed-note", "");
    newSeed();
  } else if (entry.kind === "lock") {
    text("mix", entry.mix);
    text("mix-note", Object.keys(entry.seeds).length ? "" : "(no player seed: this epoch cannot be verified)");
  } else if (entry.kind === "close" || entry.kind === "declassify") {
    const list = document.getElementById("revealed-seeds");
    if (list.textContent === "none yet") list.textContent = "";
    for (const [which, seed] of Object.entries(entry.seeds)) {
      if (seed) list.append(el("div", "", "epoch " + entry.epoch + " " + which + ": " + seed));
    }
  } else if (entry.kind === "seed" && entry.member === member) {
    text("seed-note", "sent for epoch " + entry.epoch);
  }
}

// Fair by default: a player's page sends a client seed for the epoch that would take
// it, once the log is caught up, unless one was sent already (one seed an epoch).
const epochs = { current: 0, locked: new Set(), mine: new Set(), mixedMine: new Set() };
let autoSeed = null;
function noteEpochs(entry) {
  if (entry.kind === "epoch") epochs.current = Math.max(epochs.current, entry.epoch);
  if (entry.kind === "lock") epochs.locked.add(entry.epoch);
  if (entry.kind === "lock" && member in entry.seeds) epochs.mixedMine.add(entry.epoch);
  if (entry.kind === "seed" && entry.member === member) epochs.mine.add(entry.epoch);
  if (isGm || !sendSeed) return;
  clearTimeout(autoSeed);
  autoSeed = setTimeout(sendOwnSeed, 150);  // after the replay: entries come in bursts
}
function seedTarget() {
  return epochs.locked.has(epochs.current) ? epochs.current + 1 : epochs.current;
}
async function sendOwnSeed() {
  const target = seedTarget();
  // A seed for a locked epoch makes the server roll over to a new one (contract v1.2):
  // only when this epoch's mix lacks ours, not after every lock.
  if (readOnly() || !epochs.current || epochs.mine.has(target) || epochs.mixedMine.has(epochs.current)) return;
  epochs.mine.add(target);  // once: the server keeps one seed a player an epoch
  if (!mySeed) newSeed();
  await post("seed", { seed: mySeed }, "your client seed");  // its entry says "sent for epoch N"
}

let mySeed = null;
function newSeed() {
  const node = document.getElementById("my-seed");
  if (!node) return;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  mySeed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  node.textContent = mySeed;
}

function show(entry) {
  track(entry);
  noteEpochs(entry);
  const li = render(entry);
  const old = shown.get(entry.seq);
  if (old) { old.replaceWith(li); } else { log.append(li); }
  shown.set(entry.seq, li);
  if (entry.seq > last) last = entry.seq;
  li.scrollIntoView({ block: "nearest" });
}

function connect() {
  if (frame.classList.contains("ended")) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${room}/live?after=${last}`);
  socket.addEventListener("message", (event) => show(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    // 4401: the token stopped working; the server says why when the GM removed us.
    if (event.code === 4401) { endSession(event.reason === "removed from the room"); return; }
    if (frame.classList.contains("ended")) return;
    setTimeout(connect, 1000);
  });
}

// Each failed command keeps its error beside what was typed (the last few).
const failed = document.getElementById("failed");
async function post(path, body, what) {
  const response = await fetch(`/api/rooms/${room}/${path}`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    credentials: "same-origin",
  });
  if (refused(response)) return false;
  const answer = await response.json();
  document.getElementById("error").textContent = response.ok ? "" : answer.error;
  if (!response.ok && failed) {
    const item = el("li");
    item.append(el("code", "", what || body.command || path), el("span", "error", " — " + answer.error));
    failed.prepend(item);
    while (failed.children.length > 5) failed.lastChild.remove();
  }
  return response.ok ? answer : false;  // the new entry (or entries): true-ish
}

async function reveal(seq) { await post("reveal", { seq }); }
window.refereeRoom = { post, who, names, gone, readOnly, refused, el, diceNode, sheetNames };

const sendSeed = document.getElementById("send-seed");
if (sendSeed) sendSeed.addEventListener("click", () => {
  if (epochs.mine.has(seedTarget())) {
    document.getElementById("seed-note").textContent = "sent for epoch " + seedTarget();
    return;
  }
  epochs.mine.add(seedTarget());
  post("seed", { seed: mySeed }, "your client seed");
});
const closeEpoch = document.getElementById("close-epoch");
if (closeEpoch) closeEpoch.addEventListener("click", () => post("close", { declassify: document.getElementById("declassify").checked }));
document.getElementById("verify").addEventListener("click", async () => {
  const out = document.getElementById("verify-result");
  out.textContent = "checking…";
  const log = Array.from({ length: entries.length }, (_, i) => entries[i] || { seq: null });
  const report = await window.refereeFairness.verifyLog(log);
  const counts = `${report.verified} rolls verified, ${report.waiting} waiting for a seed, ${report.redacted} hidden from you (chain checked)`;
  // Rolls whose mix held no player seed were the server's choice alone: never "passed".
  const unseeded = Object.entries(report.unseeded).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const n = unseeded.reduce((sum, [, count]) => sum + count, 0);
  const by = unseeded.map(([id, count]) => (id === "gm" ? "the GM" : who(id)) + " " + count).join(", ");
  if (!report.ok) {
    out.textContent = "FAILED: " + report.problems.join("; ");
    out.className = "failed error";
  } else if (n) {
    out.textContent = `warning: ${n} roll${n === 1 ? "" : "s"} had no player seed in their mix and ${n === 1 ? "is" : "are"} not provable (by ${by}); ` + counts;
    out.className = "warning";
  } else {
    out.textContent = "passed: " + counts;
    out.className = "passed";
  }
});

const form = document.getElementById("roll");
const typed = [];  // commands sent, for the arrow keys
let back = 0;
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const command = data.get("command");
  if (command && typed[typed.length - 1] !== command) typed.push(command);
  back = 0;
  const as = command.startsWith("@") || !window.refereeCharacters ? "" : window.refereeCharacters.prefix();
  if (await post("rolls", { command: as + command, visibility: data.get("visibility") }, command)) {
    if (form.command.value === command) form.command.value = "";  // unless retyped meanwhile
  }
});
form.command.addEventListener("keydown", (event) => {
  if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
  back = Math.max(0, Math.min(typed.length, back + (event.key === "ArrowUp" ? 1 : -1)));
  form.command.value = back ? typed[typed.length - back] : "";
  event.preventDefault();
});
if (readOnly()) lockWrites();
connect();
