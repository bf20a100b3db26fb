"use strict";
// The character panel: upload a sheet, see each sheet this member may see (their own;
// the GM every one) with its traits' levels and exact chances, and click a trait to
// roll it as that sheet (@NAME), with the chosen visibility and the modifier field.
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

  // What a click on each kind of line rolls, by system.
  function rolls(sheet, data) {
    const lines = [];
    const system = data.system;
    for (const t of data.traits) {
      if (t.chance === null) continue;
      const name = fullName(t);
      const command = system === "gurps" ? (m) => `gurps check ${quote(name)}${m === null ? "" : " " + signed(m)}`
        : system === "fudge" ? (m) => `fudge roll ${quote(name)}${m === null ? "" : " --mod " + m}`
        : (m) => `swn check ${quote((pk(sheet).attribute ? pk(sheet).attribute + "/" : "") + name)}` +
          (pk(sheet).difficulty ? ` --difficulty ${pk(sheet).difficulty}` : "") + (m === null ? "" : " --mod " + m);
      lines.push({ group: t.kind, name, level: String(t.level), chance: t.chance, command });
    }
    for (const s of data.saves || []) {
      lines.push({ group: "save", name: s.save + " save", level: String(s.target) + "+", chance: s.chance,
        command: (m) => `swn save ${s.save}${m === null ? "" : " --mod " + m}` });
    }
    const target = () => (pk(sheet).target ? ` --vs @${pk(sheet).target}` : "");
    const swn = () => (pk(sheet).ac ? ` --ac ${pk(sheet).ac}` : "");
    for (const a of data.attacks || []) {
      const name = a.usage ? `${a.name} (${a.usage})` : a.name;
      if (system === "gurps") {  // Attack (the exchange, with a target) and Damage
        if (a.level !== null && a.level !== undefined) {
          lines.push({ group: "attack", name: `Attack: ${name}`, level: `${a.level} · ${a.damage}`,
            chance: null, command: () => `gurps attack ${quote(name)}${target()}`, mod: false });
        }
        lines.push({ group: "attack", name: `Damage: ${name}`, level: a.damage, chance: null,
          command: () => `gurps damage ${quote(name)}`, mod: false });
        if (a.parry && /^\d/.test(a.parry)) {
          lines.push({ group: "defense", name: `Parry: ${name}`, level: a.parry, chance: null,
            command: (m) => `gurps check Parry ${quote(name)}${m === null ? "" : " " + signed(m)}` });
        }
      } else {
        lines.push({ group: "attack", name, level: a.damage, chance: null,
          command: () => `swn attack ${quote(name)}${pk(sheet).target ? target() : swn()}`, mod: false });
      }
    }
    if (system === "gurps" && (data.attacks || []).some((a) => a.block && /^\d/.test(a.block))) {
      lines.push({ group: "defense", name: "Block", level: "best", chance: null,
        command: (m) => `gurps check Block${m === null ? "" : " " + signed(m)}` });
    }
    return lines;
  }

  async function roll(sheet, line) {
    let mod = null;
    try { if (line.mod !== false) mod = takeMod(); } catch (error) {
      document.getElementById("error").textContent = error.message;
      return;
    }
    const visibility = document.getElementById("visibility").value;
    const command = `@${sheet.sheet} ${line.command(mod)}`;
    await window.refereeRoom.post("rolls", { command, visibility });
  }

  function card(sheet, data) {
    const box = el("section", "sheet");
    box.dataset.sheet = sheet.sheet;
    const owner = sheet.owner === "gm" ? "NPC" : window.refereeRoom.who(sheet.owner);
    box.append(el("h3", "", `${data.name}`));
    box.append(el("p", "meta", `@${sheet.sheet} · ${sheet.system} · ${owner}`));
    box.append(settings(sheet, data));
    const groups = new Map();
    for (const line of rolls(sheet, data)) {
      if (!groups.has(line.group)) groups.set(line.group, []);
      groups.get(line.group).push(line);
    }
    for (const [group, lines] of groups) {
      const list = el("ul", "traits");
      list.setAttribute("aria-label", `${data.name}: ${group}`);
      for (const line of lines) {
        const item = el("li");
        const button = el("button", "trait");
        button.type = "button";
        button.disabled = window.refereeRoom.readOnly();  // an archived room, an ended session
        button.append(el("span", "name", line.name), el("span", "level", line.level));
        if (line.chance !== null) button.append(el("span", "chance", percent(line.chance)));
        button.setAttribute("aria-label", `Roll ${line.name} as ${data.name}: ${line.level}` +
          (line.chance !== null ? `, ${percent(line.chance)} to succeed` : ""));
        button.addEventListener("click", () => roll(sheet, line));
        item.append(button);
        list.append(item);
      }
      box.append(list);
    }
    return box;
  }

  // What a click carries beyond the trait: the GM's target ("Attack ▸ Orc"), and for
  // SWN the attribute, the difficulty and the AC (the rules ask for them; the sheet
  // may not say).
  const others = [];
  const picks = new Map();  // kept across the panel's refreshes, by sheet
  const pk = (sheet) => {
    if (!picks.has(sheet.sheet)) picks.set(sheet.sheet, {});
    return picks.get(sheet.sheet);
  };
  function field(labelText, control) {
    const label = el("label", "setting");
    label.append(el("span", "", labelText), control);
    return label;
  }
  function settings(sheet, data) {
    const form = el("div", "settings write");
    if (isGm && others.length > 1) {
      const pick = el("select");
      pick.append(el("option", "", "nobody"));
      pick.options[0].value = "";
      for (const o of others) {
        if (o.sheet === sheet.sheet) continue;
        const option = el("option", "", o.name);
        option.value = o.sheet;
        pick.append(option);
      }
      pick.value = pk(sheet).target || "";
      pick.addEventListener("change", () => { pk(sheet).target = pick.value; });
      form.append(field("Attack ▸", pick));
    }
    if (data.system === "swn") {
      const attr = el("select");
      for (const a of ["", "Str", "Dex", "Con", "Int", "Wis", "Cha"]) {
        const option = el("option", "", a || "usual");
        option.value = a;
        attr.append(option);
      }
      attr.addEventListener("change", () => { pk(sheet).attribute = attr.value; });
      const difficulty = el("input");
      Object.assign(difficulty, { inputMode: "numeric", size: 3, maxLength: 2, placeholder: "8" });
      difficulty.addEventListener("change", () => { pk(sheet).difficulty = /^\d{1,2}$/.test(difficulty.value) ? difficulty.value : ""; });
      const ac = el("input");
      Object.assign(ac, { inputMode: "numeric", size: 3, maxLength: 2, placeholder: "10" });
      ac.addEventListener("change", () => { pk(sheet).ac = /^\d{1,2}$/.test(ac.value) ? ac.value : ""; });
      form.append(field("Attribute", attr), field("Difficulty", difficulty), field("AC", ac));
    }
    return form;
  }

  let refreshing = null;
  async function refresh() {
    const response = await fetch(api(""), { credentials: "same-origin" });
    if (!response.ok) { window.refereeRoom.refused(response); return; }
    const { sheets } = await response.json();
    const mine = sheets.filter((s) => isGm || s.owner === member);
    others.splice(0, others.length, ...sheets);
    const cards = [];
    for (const sheet of mine) {
      const got = await fetch(api("/" + sheet.sheet), { credentials: "same-origin" });
      if (got.ok) cards.push(card(sheet, await got.json()));
    }
    panel.replaceChildren(...cards);
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
    if (response.ok) { nameField.value = ""; changed(); }
  });

  window.refereeCharacters = { changed, prefix: () => (rollAs.value ? "@" + rollAs.value + " " : "") };
  changed();
})();
