"use strict";
// The character panel: upload a sheet, see each sheet this member may see (their own;
// the GM every one) with its traits' levels and exact chances, and click a trait to
// roll it as that sheet (@NAME), with the chosen visibility and the modifier field.
// Combat from the sheet: each weapon with its skill, damage and parry, and buttons to
// attack with it (GURPS: and to roll its damage); the defenses (Dodge, Parry, Block)
// as buttons; on the GM's page a target, so that Attack ▸ Orc rolls the whole exchange
// (--vs @orc). A small form on each card keeps the options that hold until changed:
// GURPS's target and its defense, Deceptive Attack and the aim; SWN's target, its AC,
// the difficulty of checks and the attribute for a skill.
(function () {
  const me = document.getElementById("me");
  const room = me.dataset.room, member = me.dataset.member, isGm = me.dataset.gm === "yes";
  const panel = document.getElementById("sheets");
  const rollAs = document.getElementById("roll-as");
  const modField = document.getElementById("click-mod");
  const note = document.getElementById("upload-note");
  const api = (path) => `/api/rooms/${room}/sheets${path}`;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const quote = (name) => '"' + name.replace(/["\\]/g, "\\$&") + '"';
  const percent = (p) => {
    if (p === null || p === undefined) return "";
    const [a, b] = String(p).split("/").map(Number);
    return (100 * a / (b || 1)).toFixed(1) + "%";
  };
  const fullName = (t) => t.specialization ? `${t.name} (${t.specialization})` : t.name;
  const weaponName = (a) => a.usage ? `${a.name} (${a.usage})` : a.name;

  // GURPS: the ways to roll at most n on 3d6; a 3 or 4 always succeeds, a 17 or 18
  // always fails (B347), so a roll against n succeeds as often as one against 4..16.
  const AT_MOST = [0, 0, 0, 1, 4, 10, 20, 35, 56, 81, 108, 135, 160, 181, 196, 206, 212, 215, 216];
  const chance3d6 = (level) => `${AT_MOST[Math.min(16, Math.max(4, level))]}/216`;
  // A weapon's Parry or Block as the sheet writes it ("11", "10F", "13U", "No").
  const defenseLevel = (text) => {
    const found = /^\s*(-?\d+)/.exec(text || "");
    return found ? Number(found[1]) : null;
  };

  // The modifier field applies to the next click, then empties.
  function takeMod() {
    const text = modField.value.trim();
    modField.value = "";
    if (!text) return null;
    const n = Number(text);
    if (!/^[+-]?\d{1,3}$/.test(text) || !Number.isInteger(n)) {
      throw new Error("the modifier is a whole number such as -2 or +1");
    }
    return n;
  }
  const signed = (n) => (n < 0 ? String(n) : "+" + n);

  // Each card's options, by sheet name: they stay while the cards are redrawn.
  const settings = new Map();
  const optionsOf = (name) => {
    if (!settings.has(name)) settings.set(name, {});
    return settings.get(name);
  };
  let roster = [];  // the room's sheets, as the list gives them
  const targetOf = (o) => roster.find((s) => s.sheet === o.target) || null;
  function whole(text, what, low, high) {
    if (text === undefined || text === "") return null;
    const n = Number(text);
    if (!Number.isInteger(n) || n < low || n > high) {
      throw new Error(`${what} is a whole number from ${low} to ${high}`);
    }
    return n;
  }

  // What a click on each kind of line rolls, by system. A command gets the modifier
  // (or null) and the card's options.
  function rolls(sheet, data) {
    const lines = [];
    const system = data.system;
    for (const t of data.traits) {
      if (t.chance === null) continue;
      if (system === "gurps" && t.kind === "defense") continue;  // with the defenses
      const name = fullName(t);
      let command, shown = name;
      if (system === "gurps") {
        command = (m) => `gurps check ${quote(name)}${m === null ? "" : " " + signed(m)}`;
      } else if (system === "fudge") {
        command = (m) => `fudge roll ${quote(name)}${m === null ? "" : " --mod " + m}`;
      } else {
        // The card's attribute, else the skill's usual one (the engine asks when the
        // sheet names none, listing each pair with its total).
        if (t.attribute) shown = `${t.attribute[0].toUpperCase()}${t.attribute.slice(1)}/${name}`;
        command = (m, o) => {
          const difficulty = whole(o.difficulty, "the difficulty", 2, 30);
          return `swn check ${quote(o.attribute ? `${o.attribute}/${name}` : name)}` +
            (difficulty === null ? "" : " --difficulty " + difficulty) + (m === null ? "" : " --mod " + m);
        };
      }
      lines.push({ group: t.kind, name: shown, level: String(t.level), chance: t.chance, command });
    }
    for (const s of data.saves || []) {
      lines.push({ group: "save", name: s.save + " save", level: String(s.target) + "+", chance: s.chance,
        command: (m) => `swn save ${s.save}${m === null ? "" : " --mod " + m}` });
    }
    return lines;
  }

  // GURPS: Dodge, the best Parry and the best Block, each a defense roll by name.
  function defenses(data) {
    if (data.system !== "gurps") return [];
    const lines = [];
    const line = (name, level, chance, command) => lines.push({
      group: "defense", name, level: String(level), chance: chance || chance3d6(level),
      command: (m) => `gurps check ${command}${m === null ? "" : " " + signed(m)}`,
    });
    const dodge = data.traits.find((t) => t.kind === "defense" && t.name === "Dodge");
    if (dodge) line("Dodge", dodge.level, dodge.chance, "Dodge");
    for (const [name, key] of [["Parry", "parry"], ["Block", "block"]]) {
      const levels = (data.attacks || []).map((a) => defenseLevel(a[key])).filter((n) => n !== null);
      if (levels.length) line(name, Math.max(...levels), null, name);
    }
    return lines;
  }

  async function roll(sheet, line) {
    const error = document.getElementById("error");
    let mod = null, command;
    try {
      if (line.mod !== false) mod = takeMod();
      command = `@${sheet.sheet} ${line.command(mod, optionsOf(sheet.sheet))}`;
    } catch (problem) {
      if (mod !== null) modField.value = signed(mod);
      error.textContent = problem.message;
      return;
    }
    const visibility = document.getElementById("visibility").value;
    const ok = await window.refereeRoom.post("rolls", { command, visibility });
    if (!ok && mod !== null && !modField.value) modField.value = signed(mod);  // to try again
    if (ok && line.after) await line.after(ok);
  }

  // In a fight, this sheet's combatant (as the Fight panel has it), if any.
  const inFight = (sheet) => {
    const f = window.refereeFight && window.refereeFight.state();
    return f ? f.combatants.find((c) => c.sheet === sheet && !c.out) || null : null;
  };

  function button(sheet, data, line, cls) {
    const node = el("button", "trait" + (cls ? " " + cls : ""));
    node.type = "button";
    node.disabled = window.refereeRoom.readOnly();  // an archived room, an ended session
    node.append(el("span", "name", line.name), el("span", "level", line.level));
    if (line.chance !== null) node.append(el("span", "chance", percent(line.chance)));
    node.setAttribute("aria-label", `Roll ${line.name} as ${data.name}: ${line.level}` +
      (line.chance !== null ? `, ${percent(line.chance)} to succeed` : ""));
    node.addEventListener("click", () => roll(sheet, line));
    return node;
  }

  // A labelled control of the card's form, bound to one of its options.
  function field(sheet, key, label, control, onChange) {
    const o = optionsOf(sheet.sheet);
    const box = el("span", "field");
    control.id = `opt-${sheet.sheet}-${key}`;
    const tag = el("label", "", label);
    tag.htmlFor = control.id;
    if (control.type === "checkbox") control.checked = Boolean(o[key]);
    else if (o[key] !== undefined) control.value = o[key];
    const keep = () => {
      o[key] = control.type === "checkbox" ? control.checked : control.value.trim();
      if (onChange) onChange();
    };
    control.addEventListener("change", keep);
    if (control.tagName === "INPUT") control.addEventListener("input", keep);
    if (control.type === "checkbox") box.append(control, tag); else box.append(tag, control);
    return box;
  }
  function select(choices) {
    const node = el("select");
    for (const [value, text] of choices) {
      const option = el("option", "", text);
      option.value = value;
      node.append(option);
    }
    return node;
  }
  function number(low, high, placeholder) {
    const node = el("input");
    node.type = "number";
    node.min = low;
    node.max = high;
    node.step = 1;
    node.inputMode = "numeric";
    if (placeholder) node.placeholder = placeholder;
    return node;
  }

  const AIMS = [["", "the torso (no penalty)"], ["random", "a random location (3d6)"],
    ["vitals", "vitals (−3)"], ["groin", "groin (−3)"], ["arm", "an arm (−2)"], ["leg", "a leg (−2)"],
    ["hand", "a hand (−4)"], ["foot", "a foot (−4)"], ["face", "face (−5)"], ["neck", "neck (−5)"],
    ["skull", "skull (−7)"], ["eye", "an eye (−9)"]];
  const ATTRIBUTES = ["Str", "Dex", "Con", "Int", "Wis", "Cha"];

  // The card's form: the options each click reads. Only the GM may name another sheet.
  function form(sheet, data, box) {
    const o = optionsOf(sheet.sheet);
    const set = el("fieldset", "combat write");
    set.append(el("legend", "", "Options for the clicks below"));
    const others = roster.filter((s) => s.sheet !== sheet.sheet && s.system === data.system);
    if (o.target && !others.some((s) => s.sheet === o.target)) o.target = "";
    const aimed = [];  // the fields that only an exchange reads
    const shown = () => {
      for (const node of aimed) node.hidden = !o.target;
      showTarget(box, data);
    };
    if (isGm && others.length && data.system !== "fudge") {
      const target = select([["", "no one (the attack roll alone)"],
        ...others.map((s) => [s.sheet, `${s.name} (@${s.sheet})`])]);
      set.append(field(sheet, "target", "Attack ▸ target", target, shown));
      if (data.system === "gurps") {
        aimed.push(field(sheet, "defense", "Their defense", select([["", "their best"],
          ["dodge", "Dodge"], ["parry", "Parry"], ["block", "Block"], ["none", "none"]])));
        const retreat = el("input");
        retreat.type = "checkbox";
        aimed.push(field(sheet, "retreat", "They retreat", retreat));
      }
    }
    if (data.system === "gurps") {
      set.append(...aimed);
      set.append(field(sheet, "deceptive", "Deceptive attack (−2 to hit per −1 to defend)", number(0, 10, "0")));
      set.append(field(sheet, "aim", "Aim at", select(AIMS)));
    } else if (data.system === "swn") {
      set.append(field(sheet, "ac", "Target's AC", number(0, 40, "10")));
      set.append(field(sheet, "difficulty", "Difficulty of checks", number(2, 30, "8")));
      set.append(field(sheet, "attribute", "Attribute for skill checks",
        select([["", "the skill's usual"], ...ATTRIBUTES.map((a) => [a, a])])));
    }
    for (const node of aimed) node.hidden = !o.target;
    return set;
  }

  // The attack buttons say whom they attack: "Attack ▸ Orc".
  function showTarget(box, data) {
    const target = targetOf(optionsOf(box.dataset.sheet));
    for (const node of box.querySelectorAll("button.attack")) {
      node.querySelector(".target").textContent = target ? ` ▸ ${target.name}` : "";
      node.setAttribute("aria-label", `Attack with ${node.dataset.weapon} as ${data.name}` +
        (target ? `, on ${target.name} (the whole exchange)` : "") + node.dataset.odds);
    }
  }

  function attackCommand(system, name, m, o) {
    const target = targetOf(o);
    if (system === "swn") {
      const ac = whole(o.ac, "the AC", 0, 40);
      return `swn attack ${quote(name)}` + (target ? ` --vs @${target.sheet}` : "") +
        (ac === null ? "" : " --ac " + ac);
    }
    const deceptive = whole(o.deceptive, "a Deceptive Attack", 0, 10);
    let out = `gurps attack ${quote(name)}`;
    if (m !== null) out += " --mod " + m;
    if (deceptive) out += " --deceptive " + deceptive;
    if (o.aim === "random") out += " --random-location";
    else if (o.aim) out += " --location " + o.aim;
    if (target) {
      out += ` --vs @${target.sheet}`;
      if (o.defense) out += " --defense " + o.defense;
      if (o.retreat) out += " --retreat";
    }
    return out;
  }

  // Each weapon: what the sheet says of it, and its buttons.
  function weapons(sheet, data) {
    const attacks = data.attacks || [];
    if (!attacks.length || data.system === "fudge") return null;
    const list = el("ul", "weapons");
    list.setAttribute("aria-label", `${data.name}: weapons`);
    for (const a of attacks) {
      const name = weaponName(a);
      const item = el("li", "weapon");
      const facts = [];
      if (data.system === "gurps") {
        if (a.level !== null) facts.push(`skill ${a.level}`);
        facts.push(a.damage);
        if (a.parry) facts.push(`parry ${a.parry}`);
        if (a.block) facts.push(`block ${a.block}`);
      } else {
        const attrs = a.attributes.map((x) => x[0].toUpperCase() + x.slice(1)).join("/");
        facts.push(`skill ${a.skill || "none"}${attrs ? " (" + attrs + ")" : ""}`, a.damage);
        if (a.shock) facts.push(`Shock ${a.shock}`);
      }
      item.append(el("span", "name", name), " ", el("span", "meta", facts.join(" · ")));
      const buttons = el("span", "buttons");
      const attack = el("button", "trait attack");
      attack.type = "button";
      attack.disabled = window.refereeRoom.readOnly();
      attack.dataset.weapon = name;
      attack.append("Attack", el("span", "target"));
      attack.dataset.odds = "";
      if (data.system === "gurps" && a.level !== null && a.level >= 3) {
        const odds = percent(chance3d6(a.level));
        attack.append(el("span", "chance", odds));
        attack.dataset.odds = `: skill ${a.level}, ${odds} to hit before any modifier`;
      }
      const line = { command: (m, o) => attackCommand(data.system, name, m, o), mod: data.system === "gurps" };
      attack.addEventListener("click", () => roll(sheet, line));
      buttons.append(attack);
      if (data.system === "gurps") {
        buttons.append(button(sheet, data, { name: "Damage", level: a.damage, chance: null, mod: false,
          command: () => `gurps damage ${quote(name)}` }));
        const parry = defenseLevel(a.parry);
        if (parry !== null) {
          // In a fight (GURPS): a defense roll at −4 per parry since its last turn
          // (B376), counted in the fight by the roll itself.
          const parryButton = button(sheet, data, { name: "Parry", level: String(parry), chance: chance3d6(parry),
            command: (m) => {
              const c = inFight(sheet.sheet);
              if (!c || data.system !== "gurps") return `gurps check Parry ${quote(name)}${m === null ? "" : " " + signed(m)}`;
              const n = c.values.parried || 0;
              return `gurps defend parry ${quote(name)}${n ? " --parried " + n : ""}${m === null ? "" : " --against " + m}`;
            },
            after: async (entry) => {
              const c = inFight(sheet.sheet);
              if (c && entry.result && entry.result.kind === "defense") {
                await window.refereeRoom.post("fight", { event: { kind: "defend", combatant: c.combatant, defense: "parry" }, roll: entry.seq }, "fight: defend");
              }
            } });
          parryButton.setAttribute("aria-label", `Parry with ${name} as ${data.name}: ${parry}, ` +
            `${percent(chance3d6(parry))} to succeed`);
          buttons.append(parryButton);
        }
      }
      item.append(buttons);
      list.append(item);
    }
    return list;
  }

  function card(sheet, data) {
    const box = el("section", "sheet");
    box.dataset.sheet = sheet.sheet;
    const owner = sheet.owner === "gm" ? "NPC" : window.refereeRoom.who(sheet.owner);
    box.append(el("h3", "", `${data.name}`));
    box.append(el("p", "meta", `@${sheet.sheet} · ${sheet.system} · ${owner}`));
    // The skills first (a phone reaches Stealth at once), then the combat options
    // and the weapons they apply to.
    const groups = new Map();
    for (const line of [...defenses(data), ...rolls(sheet, data)]) {
      if (!groups.has(line.group)) groups.set(line.group, []);
      groups.get(line.group).push(line);
    }
    for (const [group, lines] of groups) {
      const list = el("ul", "traits");
      list.setAttribute("aria-label", `${data.name}: ${group === "defense" ? "defenses" : group}`);
      for (const line of lines) {
        const item = el("li");
        item.append(button(sheet, data, line));
        list.append(item);
      }
      box.append(list);
    }
    if (data.system !== "fudge") box.append(form(sheet, data, box));
    const armed = weapons(sheet, data);
    if (armed) box.append(armed);
    showTarget(box, data);
    return box;
  }

  let refreshing = null, uploadFolded = false;
  async function refresh() {
    const response = await fetch(api(""), { credentials: "same-origin" });
    if (!response.ok) { window.refereeRoom.refused(response); return; }
    const { sheets } = await response.json();
    roster = sheets;
    const mine = sheets.filter((s) => isGm || s.owner === member);
    const cards = [];
    for (const sheet of mine) {
      const got = await fetch(api("/" + sheet.sheet), { credentials: "same-origin" });
      const shown = [...panel.querySelectorAll("section.sheet")].find((n) => n.dataset.sheet === sheet.sheet);
      if (got.ok) cards.push(card(sheet, await got.json()));
      else if (shown) cards.push(shown);  // a refused read (slow down: 429) keeps the card shown
    }
    panel.replaceChildren(...cards);
    // A player with a sheet at the table has used the upload form: it folds away. The
    // GM's stays open: she uploads one NPC after another (issue 65 §8).
    if (!isGm && sheets.some((s) => s.owner === member) && !uploadFolded) {
      uploadFolded = true;
      document.getElementById("upload-box").open = false;
    }
    if (!cards.length) panel.append(el("p", "meta", isGm ? "No characters yet: players upload theirs, and you may upload NPCs." : "Upload your character to roll by clicking its skills."));
    const chosen = rollAs.value;
    rollAs.replaceChildren(el("option", "", isGm ? "yourself" : (mine.length === 1 ? "your character" : "yourself")));
    rollAs.options[0].value = "";
    for (const s of mine) {
      const option = el("option", "", `${s.name} (@${s.sheet})`);
      option.value = s.sheet;
      rollAs.append(option);
    }
    rollAs.value = mine.some((s) => s.sheet === chosen) ? chosen : "";
    document.getElementById("roll-as-box").hidden = !mine.length;
    if (window.refereeFight) window.refereeFight.changed();  // its "Add to the fight" list
  }
  function changed() {
    clearTimeout(refreshing);
    refreshing = setTimeout(refresh, 100);  // entries come in bursts on a replay
  }

  document.getElementById("upload").addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = document.getElementById("sheet-file").files[0];
    const nameField = document.getElementById("sheet-name");
    if (!file) { note.textContent = "Choose a file first."; return; }
    const name = nameField.value.trim() ||
      file.name.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).toLowerCase();
    const kind = /\.toml$/i.test(file.name) ? "application/toml" : "application/json";
    const response = await fetch(api("/" + encodeURIComponent(name)), {
      method: "PUT", headers: { "Content-Type": kind }, body: file, credentials: "same-origin",
    });
    if (window.refereeRoom.refused(response)) return;
    const answer = await response.json();
    note.textContent = response.ok ? `Uploaded ${answer.name} as @${answer.sheet}.` : answer.error;
    note.className = response.ok ? "" : "error";
    if (response.ok) {
      nameField.value = "";
      changed();
      // A player's form folds away once used (and stays folded on her next visits).
      if (!isGm) {
        document.getElementById("upload-box").open = false;
        localStorage.setItem("referee-uploaded-" + room, "1");
      }
    }
  });

  if (!isGm && localStorage.getItem("referee-uploaded-" + room)) document.getElementById("upload-box").open = false;
  window.refereeCharacters = { changed, roster: () => roster, prefix: () => (rollAs.value ? "@" + rollAs.value + " " : "") };
  changed();
})();
