"use strict";
// Checks a room's log in the browser, with WebCrypto, independently of the server's word:
// the chain, digests, revealed seeds against their commitments, each lock's mix, and each
// roll's draws against its HMAC-SHA256 stream (the contract's "Randomness" section).
// It cannot re-run commands (the rules engine runs in Python): `referee verify` does that.

const enc = new TextEncoder();

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

function unhex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

async function sha256(bytes) {
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

// The contract's canon: sorted keys, no spaces, non-ASCII kept (as Python's json.dumps
// with sort_keys, separators (",", ":") and ensure_ascii=False).
function canon(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return "[" + value.map(canon).join(",") + "]";
  const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return "{" + keys.map((k) => JSON.stringify(k) + ":" + canon(value[k])).join(",") + "}";
}

async function digestOf(entry) {
  const body = {};
  for (const [k, v] of Object.entries(entry)) if (k !== "digest" && k !== "chain") body[k] = v;
  return sha256(enc.encode(canon(body)));
}

async function mixOf(seeds) {
  const pairs = Object.keys(seeds).sort().map((k) => [k, seeds[k]]);
  return sha256(enc.encode(canon(pairs)));
}

class Stream {
  constructor(key, room, epoch, seq, roller, mix) {
    this.key = key;
    this.prefix = `v1:${room}:${epoch}:${seq}:${roller}:${mix}:`;
    this.block = 0;
    this.pending = [];
  }
  async next() {
    if (!this.pending.length) {
      const mac = new DataView(await crypto.subtle.sign("HMAC", this.key, enc.encode(this.prefix + this.block)));
      this.block += 1;
      for (let i = 3; i >= 0; i--) this.pending.push(mac.getBigUint64(8 * i));
    }
    return this.pending.pop();
  }
  async draw(n) {
    const two64 = 1n << 64n, big = BigInt(n);
    const limit = two64 - (two64 % big);
    for (;;) {
      const x = await this.next();
      if (x < limit) return Number(x % big) + 1;
    }
  }
}

async function hmacKey(seedHex) {
  return crypto.subtle.importKey("raw", unhex(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

// Returns {ok, verified, redacted, waiting, unseeded, problems: ["seq N: check: ..."]}.
// unseeded: rolls whose epoch was locked with no player seed (the server alone chose
// their stream, so they are not provable, verified or not), by roller (member id).
async function verifyLog(entries) {
  const problems = [];
  const epochs = {};
  const rolls = [];
  let previous = "0".repeat(64), current = 0, verified = 0, redacted = 0, waiting = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.seq !== i) { problems.push(`seq ${e.seq}: seq: expected ${i}`); break; }
    if (!e.redacted && e.digest !== await digestOf(e)) problems.push(`seq ${i}: digest: does not match`);
    if (e.chain !== await sha256(enc.encode(previous + e.digest))) problems.push(`seq ${i}: chain: broken`);
    previous = e.chain;
    if (e.kind === "epoch") { current = e.epoch; epochs[current] = { commitments: e.commitments, seeds: {} }; }
    else if (e.kind === "lock") {
      const ep = epochs[e.epoch] || (epochs[e.epoch] = { seeds: {} });
      if (await mixOf(e.seeds) !== e.mix) problems.push(`seq ${i}: mix: does not match its seeds`);
      ep.mix = e.mix;
      ep.players = Object.keys(e.seeds).length;
    } else if (e.kind === "close" || e.kind === "declassify") {
      const ep = epochs[e.epoch] || (epochs[e.epoch] = { seeds: {} });
      for (const [which, seed] of Object.entries(e.seeds)) {
        if (seed === null) continue;
        if (!ep.commitments || await sha256(unhex(seed)) !== ep.commitments[which]) {
          problems.push(`seq ${i}: commitment: the ${which} seed does not match`);
        } else { ep.seeds[which] = seed; }
      }
    } else if (e.kind === "roll") { rolls.push([e, e.epoch ?? current]); }
  }
  const unseeded = {};
  for (const [e, number] of rolls) {
    const ep = epochs[number] || { seeds: {} };
    if (ep.mix && !ep.players) unseeded[e.roller] = (unseeded[e.roller] || 0) + 1;
    if (e.redacted) { redacted++; continue; }
    const seed = ep.seeds[e.visibility === "public" ? "public" : "secret"];
    if (!seed || !ep.mix) { waiting++; continue; }
    const stream = new Stream(await hmacKey(seed), e.room, e.epoch, e.seq, e.roller, ep.mix);
    let good = true;
    for (const [n, value] of e.draws) {
      if (await stream.draw(n) !== value) { problems.push(`seq ${e.seq}: draws: not the stream's`); good = false; break; }
    }
    if (good) verified++;
  }
  return { ok: problems.length === 0, verified, redacted, waiting, unseeded, problems };
}

window.refereeFairness = { verifyLog, mixOf, sha256, canon };
