"use strict";
// A roll's exact odds as a small chart, from what its result already carries:
// a distribution (Fudge) as columns with the result marked; a contest as one bar of
// each side's chance (and a tie); a success roll as one bar of critical success,
// success, failure and critical failure, its outcome marked; a dice total as the
// chance of rolling at least it. The text beside it says the same for screen readers.
(function () {
  const value = (p) => {
    if (p === null || p === undefined) return null;
    const [a, b] = String(p).split("/").map(Number);
    return b ? a / b : a;
  };
  const pct = (x) => (100 * x).toFixed(1) + "%";
  function el(tag, cls) { const n = document.createElement(tag); n.className = cls; return n; }

  function columns(dist, marked) {
    const box = el("span", "chart columns");
    const top = Math.max(...dist.map(([, p]) => value(p)));
    for (const [v, p] of dist) {
      const col = el("span", "col" + (v === marked ? " marked" : ""));
      col.style.height = Math.max(4, Math.round(100 * value(p) / top)) + "%";
      col.title = `${v}: ${pct(value(p))}`;
      box.append(col);
    }
    return box;
  }

  function bar(parts) {
    const box = el("span", "chart bar");
    for (const [cls, p, label, marked] of parts) {
      if (!(p > 0)) continue;
      const seg = el("span", "seg " + cls + (marked ? " marked" : ""));
      seg.style.width = (100 * p).toFixed(2) + "%";
      seg.title = `${label}: ${pct(p)}`;
      box.append(seg);
    }
    return box.children.length ? box : null;
  }

  function chart(result) {
    if (!result || Array.isArray(result) || typeof result !== "object") return null;
    const odds = result.odds || {};
    if (Array.isArray(odds.distribution) && result.result && typeof result.result.value === "number") {
      return columns(odds.distribution, result.result.value);
    }
    if (odds.first !== undefined && odds.second !== undefined) {
      const names = result.names || ["side 1", "side 2"];
      return bar([
        ["side1", value(odds.first), names[0], result.winner === 1],
        ["tie", value(odds.tie) || 0, "tie", result.winner === null || result.winner === 0],
        ["side2", value(odds.second), names[1], result.winner === 2],
      ]);
    }
    const success = value(odds.success);
    if (success !== null && typeof result.success === "boolean") {
      const cs = value(odds.critical_success) || 0, cf = value(odds.critical_failure) || 0;
      const outcome = (result.critical === true ? "critical " : "") + (result.success ? "success" : "failure");
      return bar([
        ["crit-success", cs, "critical success", outcome === "critical success"],
        ["success", success - cs, "success", outcome === "success"],
        ["failure", 1 - success - cf, "failure", outcome === "failure"],
        ["crit-failure", cf, "critical failure", outcome === "critical failure"],
      ]);
    }
    const atLeast = value(result.at_least);
    if (atLeast !== null && typeof result.total === "number") {
      return bar([
        ["below", 1 - atLeast, `below ${result.total}`, false],
        ["at-least", atLeast, `${result.total} or more`, true],
      ]);
    }
    return null;
  }

  window.refereeChart = (result) => {
    const node = chart(result);
    if (node) node.setAttribute("aria-hidden", "true");
    return node;
  };
})();
