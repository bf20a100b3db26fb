"use strict";
// The fight tracker (contract v1.2, "The fight's state"): the order, whose turn it is,
// HP/FP bars and conditions, and the rolls the rules call for, each one click for the
// member who answers it. Every change is a log entry; the panel redraws from
// GET /fight when one arrives. The GM applies a damage roll from the log with one
// click ("Apply to Orc Raider"), adds combatants from the room's sheets, and runs the
// turns; a player answers their own character's calls and ends its turn.
(() => {
  const R = window.refereeRoom, el = R.el;
  const me = document.getElementById("me");
  const room = me.dataset.room, member = me.dataset.member, isGm = me.dataset.gm === "yes";
  const body = document.getElementById("fight-body");
  const note = document.getElementById("fight-note");
  const kinds = new Set(["combatant", "change", "turn"]);
  const fightNames = {};  // combatant id -> name, from the log's combatant entries
  let fight = null, timer = null, target = "", asked = 0, adding = { sheet: "", hidden: false };
  const drafts = {};  // what the GM has typed in each Damage box, kept across redraws
  let bySide = false;  // the GM's "one roll a side" (SWN), kept across redraws
  let npcSecret = true;  // the GM's NPCs' calls rolled in secret (contract v1.4)
  const applied = new Set();  // rolls whose damage the fight has taken (GM's view)
  let oddsAt = null;  // the round and turn those odds were asked at (cleared after)
  let oddsLine = "";  // the GM's last "odds from here" headline (issue 68 §4), kept across redraws

  // A hidden combatant's id names nothing (contract v1.3): a player reads it as such.
  const nameOf = (id) => fightNames[id] || (id && id.startsWith("npc-") ? "a hidden combatant" : id);
  async function load() {
    const mine = ++asked;  // an older answer that comes late is dropped
    let response;
    try {
      response = await fetch(`/api/rooms/${room}/fight`, { credentials: "same-origin" });
    } catch (error) { return; }  // the next entry loads it again
    if (mine !== asked || R.refused(response)) return;
    if (!response.ok) {  // a room with no system has no fight: say why
      body.replaceChildren(el("p", "meta", (await response.json()).error));
      return;
    }
    fight = await response.json();
    for (const c of fight.combatants) {
      fightNames[c.combatant] = c.name;
      if (c.sheet && !(c.sheet in R.sheetNames)) R.sheetNames[c.sheet] = c.name;
    }
    document.getElementById("room").classList.toggle("fighting", fight.combatants.length > 0);
    draw();
  }
  function changed() { clearTimeout(timer); timer = setTimeout(load, 80); }

  // One event (its numbers from the roll at seq `roll`, if any): errors stay in view.
  async function send(event, roll) {
    note.textContent = "";
    note.className = "";
    const answer = await R.post("fight", { event, roll: roll ?? null }, "fight: " + event.kind);
    if (!answer) {
      note.textContent = document.getElementById("error").textContent;
      note.className = "error";
    }
    return answer;
  }
  // A call answered in one request: the server rolls its command as the call's
  // combatant (contract v1.3; secret when that combatant is hidden) and answers it.
  async function answer(call, choice) {
    const event = { kind: "answer", call: call.call };
    if (choice !== undefined) event.choice = choice;  // a defense the player chose (v1.4)
    const c = fight.combatants.find((x) => x.combatant === call.combatant);
    // Contract v1.4: the GM's NPCs roll in secret unless she says otherwise.
    if (isGm && c && c.owner === "gm" && !c.hidden && !npcSecret) {
      const got = await R.post("fight", { event, roll: "call", visibility: "public" }, "fight: answer");
      if (got) changed();
      return;
    }
    await send(event, "call");
  }

  function button(text, onClick, cls) {
    const b = el("button", "write " + (cls || ""), text);
    b.type = "button";
    b.disabled = R.readOnly();
    b.addEventListener("click", onClick);
    return b;
  }
  function bar(label, value, max) {
    const box = el("span", "bar");
    const meter = el("meter");
    meter.min = 0;
    meter.max = Math.max(1, max);
    meter.value = Math.max(0, value);
    meter.low = meter.max / 3 + 0.01;
    meter.high = meter.max * 2 / 3;
    meter.optimum = meter.max;
    meter.setAttribute("aria-label", `${label} ${value} of ${max}`);
    box.append(el("span", "what", label), meter, el("span", "num", `${value}/${max}`));
    return box;
  }
  function bars(c) {
    const v = c.values, out = [];
    if ("hp_max" in v) out.push(bar("HP", v.hp, v.hp_max));
    if ("fp_max" in v) out.push(bar("FP", v.fp, v.fp_max));
    if ("strain_max" in v) out.push(el("span", "num", `Strain ${v.strain}/${v.strain_max}`));
    if (fight.system === "fudge") out.push(el("span", "num", `Luck ${v.luck ?? 0}`));
    return out;
  }

  const INITIATIVE = ["initiative", "side initiative", "tiebreak"];
  function rollsToStart() {  // the initiative rolls the first round waits for (rules 4)
    return fight.round ? 0 : fight.calls.filter((x) => INITIATIVE.includes(x.kind)).length;
  }

  function turnLine() {
    const waiting = rollsToStart();  // issue 71 §1.10: started, its rolls not all in
    if (waiting) return `Starting: ${waiting} initiative roll${waiting === 1 ? "" : "s"} to make; the first round begins with the last.`;
    if (!fight.round) return `Not started: ${fight.combatants.length} in the fight.`;
    const able = fight.combatants.filter((c) => fight.order.includes(c.combatant) && !c.down && !c.out);
    const hiddenLeft = fight.order.some((id) => !fight.combatants.some((c) => c.combatant === id));
    if (!able.length && !hiddenLeft) return `Round ${fight.round} · no one left in the fight can act`;
    const current = fight.current ? nameOf(fight.current) : "nobody";
    return current === "a hidden combatant" ? `Round ${fight.round} · a hidden combatant acts` : `Round ${fight.round} · ${current}'s turn`;
  }

  function combatantItem(c, place) {
    const li = el("li", "combatant");
    li.dataset.combatant = c.combatant;
    if (c.combatant === fight.current) { li.classList.add("current"); li.setAttribute("aria-current", "true"); }
    if (c.out) li.classList.add("out");
    const head = el("div", "head");
    head.append(el("strong", "", c.name));
    if (place) head.append(" ", el("span", "meta", "#" + place));
    if (c.hidden) head.append(" ", el("span", "badge gm", "hidden"));
    if (c.out) head.append(" ", el("span", "badge", "out of the fight"));
    li.append(head);
    const row = el("div", "bars");
    row.append(...bars(c));
    li.append(row);
    if (c.shown.length) {
      const list = el("ul", "conditions");
      list.setAttribute("aria-label", c.name + "'s conditions");
      for (const s of c.shown) list.append(el("li", "condition", s));
      li.append(list);
    }
    if (isGm && !c.out) {
      const tools = el("div", "tools write");
      const amount = el("input");
      amount.type = "number";
      amount.min = "0";
      amount.max = "999";
      amount.placeholder = "0";
      amount.setAttribute("aria-label", "Damage to " + c.name);
      amount.disabled = R.readOnly();
      amount.value = drafts[c.combatant] || "";
      amount.addEventListener("input", () => { drafts[c.combatant] = amount.value; });
      tools.append(amount, button("Damage", () => {
        const n = Number.parseInt(amount.value, 10);
        if (Number.isFinite(n)) {
          delete drafts[c.combatant];
          send({ kind: "damage", combatant: c.combatant, amount: n });
        }
      }));
      if (c.hidden) tools.append(button("Reveal", () => send({ kind: "reveal", combatant: c.combatant })));
      tools.append(button("Remove", () => send({ kind: "remove", combatant: c.combatant })));
      gmConditionTools(c, tools);
      li.append(tools);
    }
    // Issue 65 §7: a Stabilize roll aimed at a mortally wounded combatant (SWN), made as
    // the clicker's own sheet; the fight's tracker gives its rounds down.
    const dying = fight.system === "swn" && (c.conditions || []).includes("mortally wounded")
      && !(c.conditions || []).includes("dead") && !(c.conditions || []).includes("stabilized");
    // Issue 71 §1.6: rolled as the medic's sheet (the clicker's character in the fight),
    // never by the dying one herself (003: the mortally wounded take no action).
    const medic = (fight.combatants || []).find((x) => x.owner === member && x.sheet && !x.out && x.combatant !== c.combatant);
    // A player may not name the GM's sheets (contract v1.3): no button on an NPC for her.
    if (dying && c.sheet && !c.out && (isGm || (c.owner !== member && c.owner !== "gm"))) {
      const as = medic && !isGm ? `@${medic.sheet} ` : "";
      li.append(button(`Stabilize ${c.name}`, () => R.post("rolls", { command: `${as}swn stabilize --vs @${c.sheet}`, visibility: "public" }, "stabilize"), "stabilize"));
    }
    // A player attacks with her own character; the GM with her NPCs (secret, v1.4).
    if (!c.out && (isGm ? c.owner === "gm" : c.owner === member)) {
      const row = attackRow(c);
      if (row) li.append(row);
      const other = maneuverRow(c);
      if (other) li.append(other);
    }
    return li;
  }

  // A player's attack on a combatant she can see, in one request (issue 49 §5): her
  // attack public, the target's defense the GM's secret roll, her damage through its
  // DR. The weapons are her sheet's, read once.
  const weaponsOf = {};  // sheet -> [weapon names], or a promise of them
  async function weaponList(sheet) {
    if (!(sheet in weaponsOf)) {
      weaponsOf[sheet] = fetch(`/api/rooms/${room}/sheets/${sheet}`, { credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : { attacks: [] }))
        .then((d) => (d.attacks || []).map((a) => (a.usage ? `${a.name} (${a.usage})` : a.name)))
        .catch(() => []);
    }
    return weaponsOf[sheet];
  }
  const aiming = {};  // combatant -> {weapon, target}: kept across redraws
  function attackRow(c) {
    const row = el("div", "attack-row write");
    // Contract v1.4: an attack is made on its attacker's own turn, by one still in the
    // fight; a downed foe may still be hit (finished off), a dead one no more.
    const foes = fight.combatants.filter((x) => x.combatant !== c.combatant && !x.out
      && !(x.conditions || []).includes("dead"));
    // Issue 71 §1.7: those still standing first, so that the default is never a downed
    // foe (one may still be chosen, to finish it off); a broken NPC flees (003, Morale).
    foes.sort((a, b) => Number(!!a.down) - Number(!!b.down));
    if ((c.conditions || []).includes("broken")) return null;
    if (!foes.length || !["gurps", "swn"].includes(fight.system) || !c.sheet) return null;
    if (fight.current !== c.combatant || c.down || c.out) return null;
    if ((c.conditions || []).includes("stunned")) return null;  // B420: no action but Do Nothing
    const pick = aiming[c.combatant] || (aiming[c.combatant] = { weapon: "", target: "" });
    const weapon = el("select");
    weapon.setAttribute("aria-label", `${c.name}'s weapon`);
    weaponList(c.sheet).then((names) => {
      for (const n of names) { const o = el("option", "", n); o.value = n; weapon.append(o); }
      if (names.includes(pick.weapon)) weapon.value = pick.weapon;
      pick.weapon = weapon.value;
      go.disabled = R.readOnly() || !names.length;
    });
    weapon.addEventListener("change", () => { pick.weapon = weapon.value; });
    const foe = el("select");
    foe.setAttribute("aria-label", `${c.name} attacks`);
    for (const x of foes) { const o = el("option", "", x.name); o.value = x.combatant; foe.append(o); }
    if (foes.some((x) => x.combatant === pick.target)) foe.value = pick.target;
    pick.target = foe.value;
    foe.addEventListener("change", () => { pick.target = foe.value; });
    const how = el("select");  // the maneuver (B365): Attack unless chosen
    how.setAttribute("aria-label", `${c.name}'s maneuver`);
    for (const m of ["attack", "all-out attack", "all-out attack (double)", "move and attack"]) {
      const o = el("option", "", m[0].toUpperCase() + m.slice(1)); o.value = m; how.append(o);
    }
    const go = button("Attack", async () => {
      go.disabled = true;
      note.textContent = "";
      const asked = { attacker: c.combatant, target: foe.value, weapon: weapon.value };
      if (fight.system === "gurps") asked.maneuver = how.value;  // SWN: a Main Action
      const answer = await R.post("fight/attack", asked, "attack");
      go.disabled = false;
      if (!answer) { note.textContent = document.getElementById("error").textContent; note.className = "error"; return; }
      const hit = answer.rolls[0];
      const held = answer.entries.find((e) => e.event && e.event.kind === "defend" && e.event.success);
      const name = nameOf(foe.value);
      const verbs = { dodge: "dodges", parry: "parries", block: "blocks" };
      const waits = answer.entries.some((e) => (e.calls || []).some((x) => x.kind === "defense"));
      note.className = "";
      note.textContent = hit.redacted ? `${c.name} attacks ${name}.`
        : !hit.result || !(hit.result.success || hit.result.torso_instead) ? `${c.name} misses ${name}.`
        : waits ? `${name} must defend.`
        : held ? `${name} ${verbs[held.event.defense] || "defends"}.` : `${c.name} hits ${name}.`;
    }, "attack");
    go.disabled = true;  // until the weapons are read
    if (fight.system === "gurps") row.append(how, " ");
    row.append(weapon, " ▸ ", foe, " ", go);
    return row;
  }

  // Any other maneuver, on the combatant's own turn (B364-B366; contract v1.4): the
  // fight takes it, and its effects follow (All-Out Defense's +2, Aim's Acc next turn,
  // a posture's modifiers).
  const OTHER = [
    ["all-out defense", { defense: "dodge" }, "All-Out Defense (Dodge +2)"],
    ["all-out defense", { defense: "parry" }, "All-Out Defense (Parry +2)"],
    ["all-out defense", { defense: "block" }, "All-Out Defense (Block +2)"],
    ["aim", {}, "Aim"],
    ["change posture", { posture: "standing" }, "Stand up"],
    ["change posture", { posture: "kneeling" }, "Kneel"],
    ["change posture", { posture: "prone" }, "Lie prone"],
    ["evaluate", {}, "Evaluate"], ["ready", {}, "Ready"], ["move", {}, "Move"],
    ["concentrate", {}, "Concentrate"], ["wait", {}, "Wait"], ["do nothing", {}, "Do Nothing"],
  ];
  function maneuverRow(c) {
    if (fight.system === "swn" && fight.current === c.combatant && !c.down && !c.out
        && !(c.values || {}).acted && !(c.conditions || []).includes("broken")) {
      // SWN's Total Defense (003): +2 AC and no Shock until its next turn (issue 71 §1.7).
      const row = el("div", "maneuver-row write");
      row.append(button("Total Defense", () => send({ kind: "maneuver", combatant: c.combatant, maneuver: "total defense" }), "maneuver"));
      return row;
    }
    if (fight.system !== "gurps" || fight.current !== c.combatant || c.down || (c.values || {}).acted) return null;
    const row = el("div", "maneuver-row write");
    const pick = el("select");
    pick.setAttribute("aria-label", `${c.name}'s maneuver`);
    const stunned = (c.conditions || []).includes("stunned");  // B420: Do Nothing alone
    OTHER.forEach(([name, , label], i) => {
      if (stunned && name !== "do nothing") return;
      const o = el("option", "", label); o.value = String(i); pick.append(o);
    });
    row.append(pick, " ", button("Take", () => {
      const [maneuver, extra] = OTHER[Number(pick.value)];
      send({ kind: "maneuver", combatant: c.combatant, maneuver, ...extra });
    }, "maneuver"));
    return row;
  }

  // The GM's hand on a combatant's conditions and SWN morale (issue 49 §6).
  function gmConditionTools(c, tools) {
    if ((c.conditions || []).includes("dead")) return;  // the dead neither stand nor wake
    const drop = (cond, label) => {
      if ((c.conditions || []).includes(cond)) tools.append(button(label, () => send({ kind: "set", combatant: c.combatant, drop: [cond] })));
    };
    drop("prone", "Stand up");
    drop("unconscious", "Wakes up");
    drop("stunned", "No longer stunned");
    if (fight.system === "gurps" && c.sheet) {
      // An NPC's defense: the server's secret roll, or the GM's by hand. A player's
      // character's: her own (contract v1.4), or the GM's, for speed.
      const mine = el("input");
      mine.type = "checkbox";
      mine.checked = !!c.values.gm_defends;
      mine.disabled = R.readOnly();
      mine.addEventListener("change", () => send({ kind: "set", combatant: c.combatant, values: { gm_defends: mine.checked ? 1 : 0 } }));
      const label = el("label", "inline", c.pc ? " I roll her defenses" : " I roll its defenses");
      label.prepend(mine);
      tools.append(label);
    }
    if (fight.system === "swn" && !c.pc) {
      const morale = el("input");
      morale.type = "number";
      morale.min = "2";
      morale.max = "12";
      morale.value = c.values.morale || "";
      morale.placeholder = "Morale";
      morale.setAttribute("aria-label", "Morale of " + c.name);
      morale.disabled = R.readOnly();
      tools.append(morale, button("Set morale", () => {
        const n = Number.parseInt(morale.value, 10);
        if (Number.isFinite(n)) send({ kind: "set", combatant: c.combatant, values: { morale: n } });
      }));
    }
  }

  function callItem(call) {
    const c = fight.combatants.find((x) => x.combatant === call.combatant);
    const li = el("li", "call");
    li.dataset.call = call.call;
    li.append(el("strong", "", nameOf(call.combatant) + ": "), call.why);
    const mine = isGm || (c && c.owner === member);
    if (call.choices && call.choices.length && mine) {
      // Contract v1.4: the defender chooses her defense: one click a choice, each with
      // its level after the fight's modifiers and its exact odds to hold.
      const list = el("div", "choices");
      call.choices.forEach((choice, i) => {
        const b = button(choice.label, () => answer(call, i), "answer");
        b.dataset.choice = String(i);
        list.append(b);
      });
      li.append(list);
    } else {
      if (call.command) li.append(" ", el("code", "", call.command)); // an NPC's: the GM's
      if (mine) li.append(" ", button("Roll", () => answer(call), "answer"));
    }
    if (isGm) li.append(" ", button("Dismiss", () => send({ kind: "dismiss", call: call.call })));
    return li;
  }

  function addForm() {
    const form = el("div", "add write");
    const roster = (window.refereeCharacters && window.refereeCharacters.roster()) || [];
    const inFight = new Set(fight.combatants.map((c) => c.sheet || c.combatant));
    const choices = roster.filter((s) => !inFight.has(s.sheet));
    if (!choices.length) {
      form.append(el("p", "meta", "Upload sheets (Character) to add them to the fight."));
      return form;
    }
    const pick = el("select");
    pick.id = "fight-add";
    for (const s of choices) {
      const o = el("option", "", `${s.name} (@${s.sheet})`);
      o.value = s.sheet;
      o.dataset.owner = s.owner;
      pick.append(o);
    }
    const label = el("label", "", "Add to the fight");
    label.htmlFor = "fight-add";
    const hide = el("input");
    hide.type = "checkbox";
    hide.id = "fight-add-hidden";
    const hideLabel = el("label", "inline", " hidden from players");
    hideLabel.prepend(hide);
    // An NPC (the GM's sheet) is hidden by default; a choice made stays across redraws.
    const sync = () => {
      hide.checked = pick.selectedOptions[0]?.dataset.owner === "gm";
      adding = { sheet: pick.value, hidden: hide.checked };
    };
    pick.addEventListener("change", sync);
    hide.addEventListener("change", () => { adding.hidden = hide.checked; });
    if (choices.some((c) => c.sheet === adding.sheet)) {
      pick.value = adding.sheet;
      hide.checked = adding.hidden;
    } else sync();
    // A hidden combatant's id is the server's, one that names nothing (contract v1.3).
    form.append(label, pick, " ", hideLabel, " ", button("Add", () =>
      send(hide.checked ? { kind: "add", sheet: pick.value, hidden: true } : { kind: "add", sheet: pick.value })));
    return form;
  }

  // A redraw keeps the keyboard's place: the control focused before (the same button
  // of the same combatant or call) is focused again, or else the turn line.
  function focusKey(node) {
    if (!node || !body.contains(node) || node === body) return null;
    const holder = node.closest("[data-combatant],[data-call]");
    const where = holder ? holder.dataset.combatant || holder.dataset.call : "";
    return [where, node.tagName, node.id, node.getAttribute("aria-label") || node.textContent].join("|");
  }

  function draw() {
    const focused = focusKey(document.activeElement);
    const items = [];
    const turn = el("p", "turn", turnLine());
    turn.id = "fight-turn";
    turn.tabIndex = -1;
    items.push(turn);
    const controls = el("p", "controls");
    if (isGm && fight.combatants.length) {
      if (!fight.round && rollsToStart()) {
        // Started: the order waits for its rolls (the calls below); no second Start.
      } else if (!fight.round) {
        controls.append(button("Start the fight", () => send(bySide && fight.system === "swn" ? { kind: "start", group: true } : { kind: "start" })));
        if (fight.system === "swn") {  // one initiative roll a side (an option, 003 gives none)
          const sides = el("input");
          sides.type = "checkbox";
          sides.checked = bySide;  // kept across redraws
          sides.addEventListener("change", () => { bySide = sides.checked; });
          sides.id = "fight-sides";
          const label = el("label", "inline", " one roll a side");
          label.htmlFor = "fight-sides";
          controls.append(" ", sides, label);
        }
      }
      else controls.append(button("Previous", () => send({ kind: "previous" })), " ", button("Next turn", () => send({ kind: "next" })));
    } else if (fight.round && fight.combatants.some((c) => c.combatant === fight.current && c.owner === member)) {
      controls.append(button("End my turn", () => send({ kind: "next" })));
    }
    if (isGm && fight.combatants.length) {
      const secret = el("input");
      secret.type = "checkbox";
      secret.id = "fight-npc-secret";
      secret.checked = npcSecret;
      secret.addEventListener("change", () => { npcSecret = secret.checked; });
      const label = el("label", "inline", " my NPCs roll in secret");
      label.htmlFor = "fight-npc-secret";
      controls.append(" ", secret, label);
      const pcs = fight.combatants.filter((c) => c.pc && !c.out && c.sheet && fight.system === "gurps");
      if (pcs.length) {  // v1.4: the players roll their own defenses, unless the GM does
        const all = pcs.every((c) => c.values.gm_defends);
        controls.append(" ", button(all ? "Players roll their defenses" : "I roll every PC's defenses",
          () => send({ kind: "defenses", gm: !all }), "pc-defenses"));
      }
    }
    if (controls.childNodes.length) items.push(controls);
    if (isGm && ["gurps", "swn"].includes(fight.system) && fight.combatants.length) {
      // The GM's alone: nothing logged, nothing sent to the players (issue 68 §4).
      if (oddsAt && (oddsAt.round !== fight.round || oddsAt.current !== fight.current)) {
        oddsLine = "";  // issue 71 §1.10: odds of another turn are not these
        oddsAt = null;
      }
      const shown = el("span", "meta odds", oddsLine);
      shown.setAttribute("aria-live", "polite");
      const p = el("p", "odds");
      const say = (text) => {  // into the panel as it is now: it may have redrawn meanwhile
        oddsLine = text;
        const now = body.querySelector("span.odds");
        if (now) now.textContent = text;
      };
      p.append(button("Odds of this fight from here", async () => {
        say("simulating 10,000 fights…");
        const got = await R.post("fight/odds", { n: 10000 }, "odds of the fight");
        if (!got) { say(""); return; }
        const h = got.headline, pct = (p) => (100 * p).toFixed(1) + "%";
        const wins = Object.entries(h.win).map(([side, p]) => `${side} ${pct(p)}`);
        if (h.draw >= 0.0005) wins.push(`draw ${pct(h.draw)}`);
        oddsAt = { round: fight.round, current: fight.current };
        const at = new Date().toTimeString().slice(0, 5);
        say(`${wins.join(", ")}; ${h.rounds.toFixed(1)} rounds on average (from round ${fight.round || 1}, at ${at})`);
      }, "odds"), " ", shown);
      items.push(p);
    }
    if (isGm && fight.combatants.length) {
      const pick = el("select");
      pick.id = "fight-target";
      const none = el("option", "", "(the roll's own target)");  // issue 65 §8: no guess
      none.value = "";
      pick.append(none);
      for (const c of fight.combatants.filter((x) => !x.out)) {
        const o = el("option", "", c.name);
        o.value = c.combatant;
        pick.append(o);
      }
      if ([...pick.options].some((o) => o.value === target)) pick.value = target;
      target = pick.value;
      pick.addEventListener("change", () => { target = pick.value; });
      const label = el("label", "inline", "Rolls from the log go to ");
      label.htmlFor = "fight-target";
      const p = el("p", "target write");
      p.append(label, pick);
      items.push(p);
    }
    // The rolls the rules call for come first: on a desktop they stay in view.
    if (fight.calls.length) {
      items.push(el("h3", "", "Rolls the rules call for"));
      const calls = el("ul", "calls");
      for (const call of fight.calls) calls.append(callItem(call));
      items.push(calls);
    }
    const order = [...fight.order, ...fight.combatants.map((c) => c.combatant).filter((id) => !fight.order.includes(id))];
    const byId = new Map(fight.combatants.map((c) => [c.combatant, c]));
    const list = el("ol", "combatants");
    list.setAttribute("aria-label", "Combatants in order");
    order.forEach((id, i) => { if (byId.has(id)) list.append(combatantItem(byId.get(id), fight.order.includes(id) ? i + 1 : 0)); });
    if (fight.combatants.length) items.push(list);
    else items.push(el("p", "meta", "No fight yet."));
    // The GM's rolls to apply, in the panel too (on a phone the Log is another tab).
    const waiting = isGm ? [...candidates.values()].filter((e) => !applied.has(e.seq)).slice(-3) : [];
    if (waiting.length) {
      items.push(el("h3", "", "Rolls to apply"));
      for (const e of waiting) {
        const b = applyButton(e);
        if (!b) continue;
        const p = el("p", "pending");
        p.append(el("span", "meta", `#${e.seq} `), el("span", "text", e.text.length > 90 ? e.text.slice(0, 89) + "…" : e.text), " ", b);
        items.push(p);
      }
    }
    if (isGm) items.push(addForm());
    body.replaceChildren(...items);
    if (focused) {
      const again = [...body.querySelectorAll("button, input, select")].find((n) => focusKey(n) === focused);
      (again && !again.disabled ? again : turn).focus();
    }
  }

  // A log entry of the fight, as one line.
  const BOOKKEEPING = new Set(["shock_new", "acted", "attacks", "defended"]);
  const hiddenIds = new Set();  // combatants added hidden (their entries are the GM's)
  const LABELS = { hp: "HP", fp: "FP", shock: "shock", strain: "strain", luck: "Luck", rounds_down: "rounds down", morale: "Morale" };
  function line(entry) {
    if (entry.redacted) return [el("span", "redacted", "a hidden change to the fight")];
    const out = [];
    if (entry.kind === "change" && typeof entry.why === "number" && entry.event && ["damage", "result"].includes(entry.event.kind)) {
      markApplied(entry.why);
    }
    if (entry.kind === "combatant") {
      fightNames[entry.combatant] = entry.name;
      // A combatant shown names its sheet (the GM's sheet entry is the GM's: v1.3).
      if (entry.sheet && !(entry.sheet in R.sheetNames)) R.sheetNames[entry.sheet] = entry.name;
      const v = entry.values || {};
      const hp = "hp_max" in v ? ` (HP ${v.hp}/${v.hp_max})` : "";
      if (entry.hidden) hiddenIds.add(entry.combatant);
      if (entry.visibility === "gm" && !entry.hidden) {  // the GM's copy of a visible NPC's
        out.push(el("span", "meta", `${entry.name}'s sheet numbers, the GM's${hp}`));
      } else {
        out.push(el("span", "text", `${entry.name} is in the fight${hp}` + (entry.hidden ? ", hidden from players" : "")));
      }
    } else if (entry.kind === "turn") {
      out.push(el("span", "text", entry.round ? `Round ${entry.round}: ${nameOf(entry.current)}'s turn` : "The fight's order is set"));
    } else {
      const parts = [];
      for (const [k, [a, b]] of Object.entries(entry.values || {})) {
        if (k === "shock") parts.push(`shock ${a ? -a : 0} → ${b ? -b : 0}`);  // a penalty
        else if (BOOKKEEPING.has(k)) continue;  // when shock ends, a turn's maneuver...
        else parts.push(`${LABELS[k] || k.replace(/_/g, " ")} ${a} → ${b}`);
      }
      if (entry.conditions) {
        const [before, after] = entry.conditions;
        const gained = after.filter((c) => !before.includes(c)), lost = before.filter((c) => !after.includes(c));
        if (gained.length) parts.push("now " + gained.join(", "));
        if (lost.length) parts.push("no longer " + lost.join(", "));
      }
      for (const call of entry.calls || []) parts.push(`${call.command ? "must roll " + call.command : "has a roll for the GM to make"}: ${call.why}`);
      if ((entry.closed || []).length) parts.push("answered " + entry.closed.join(", "));
      if (entry.initiative !== undefined && entry.initiative !== null) parts.push("takes its place in the order");
      const ev = entry.event || {};
      if (ev.kind === "maneuver" && ev.combatant === entry.combatant) parts.unshift(`takes ${ev.maneuver}`);
      const copy = entry.visibility === "gm" && !hiddenIds.has(entry.combatant);
      const none = copy ? "its sheet's numbers, the GM's" : "its numbers are the GM's";
      out.push(el("span", copy ? "meta" : "text", `${nameOf(entry.combatant)}: ${parts.join("; ") || none}`));
    }
    if (typeof entry.why === "number") {
      const link = el("a", "", "roll #" + entry.why);
      link.href = "#entry-" + entry.why;
      out.push(el("span", "meta", " (from "), link, el("span", "meta", ")"));
    } else if (entry.why) out.push(el("span", "meta", ` (${entry.why})`));
    return out;
  }

  // A damage roll in the log, one click from its target: an exchange's own target
  // when it is in the fight, or the target chosen above.
  const DAMAGE = new Set(["damage", "exchange", "blow"]);
  function markApplied(seq) {
    applied.add(seq);
    const b = document.querySelector(`#entry-${seq} button.apply`);
    if (b) { b.disabled = true; b.textContent = "Applied"; }
    if (candidates.has(seq)) changed();
  }
  // A successful stabilize roll (SWN, 003 "Stabilization"), one click from the fallen
  // combatant it is for: the one chosen above, else the only one down.
  function stabilizeButton(entry) {
    const r = entry.result;
    if (!r.success) return null;
    // Issue 65 §7: a roll aimed --vs @SHEET is for that sheet's combatant, and only it.
    const vs = /(?:^|\s)--vs[ =]@([A-Za-z0-9_-]+)/.exec(entry.command || "");
    const b = button(vs ? `Apply: @${vs[1]} stabilized` : "Apply: stabilized", async () => {
      const down = fight ? fight.combatants.filter((c) => !c.out && (c.conditions || []).includes("mortally wounded")) : [];
      const chosen = vs ? down.find((c) => c.sheet === vs[1])
        : down.find((c) => c.combatant === target) || (down.length === 1 ? down[0] : null);
      if (!chosen) {
        note.textContent = vs ? `@${vs[1]} is not mortally wounded in the fight.`
          : down.length ? "Choose the fallen combatant in “Rolls from the log go to” first." : "Nobody in the fight is mortally wounded.";
        note.className = "error";
        return;
      }
      b.disabled = true;
      if (!(await send({ kind: "result", combatant: chosen.combatant, of: "stabilize" }, entry.seq))) b.disabled = false;
      else { b.textContent = "Applied"; }
    }, "apply");
    return b;
  }

  const candidates = new Map();  // seq -> a roll entry with an Apply button (the GM's)
  function applyButton(entry) {
    const b = makeApply(entry);
    if (b && !candidates.has(entry.seq)) { candidates.set(entry.seq, entry); changed(); }
    return b;
  }
  function makeApply(entry) {
    const r = entry.result;
    if (!r || r.refused || Array.isArray(r)) return null;
    if (r.system === "swn" && r.kind === "stabilize") return stabilizeButton(entry);
    const damaging = DAMAGE.has(r.kind) || (r.system === "swn" && r.kind === "attack");
    if (!damaging || ((r.kind === "exchange" || r.kind === "blow") && !(r.damage && r.damage.injury))) return null;
    const named = () => fight && fight.combatants.find((c) => !c.out && (c.name === r.target || c.combatant === r.target));
    // A roll aimed --vs @SHEET goes to that sheet's combatant: the server sends it there
    // (contract v1.3), so the event names none.
    const vs = /(?:^|\s)--vs[ =]@([A-Za-z0-9_-]+)/.exec(entry.command || "");
    const aimed = () => vs && fight && fight.combatants.find((c) => !c.out && c.sheet === vs[1]);
    const label = vs ? `Apply to @${vs[1]}` : r.kind === "exchange" ? `Apply to ${r.target}` : "Apply to the target";
    const b = button(label, async () => {
      // An exchange's damage goes to its own target, or nowhere: never to another.
      const to = vs ? aimed() : r.kind === "exchange" ? named() : fight && fight.combatants.find((c) => c.combatant === target);
      if (!to) {
        note.textContent = vs || r.kind === "exchange" ? `${vs ? "@" + vs[1] : r.target} is not in the fight: add it first.`
          : target ? "Add the target to the fight first." : "Choose the combatant in “Rolls from the log go to” first: this roll names no target.";
        note.className = "error";
        return;
      }
      b.disabled = true;  // one click, one application
      const event = vs ? { kind: "damage" } : { kind: "damage", combatant: to.combatant };
      if (!(await send(event, entry.seq))) b.disabled = false;
    }, "apply");
    if (applied.has(entry.seq)) { b.disabled = true; b.textContent = "Applied"; }
    b.title = "Apply this roll's damage in the fight";
    return b;
  }

  window.refereeFight = { changed, line, kinds, applyButton, state: () => fight };
  changed();
})();
