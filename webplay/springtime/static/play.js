// Browser play of Springtime for Hitler: draw the server's layers, offer the human's legal choices (as
// buttons and as highlighted locations and units on the map), and let the bots move one decision at a time.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("sfh-data").textContent);
  const $ = (id) => document.getElementById(id);
  const SIDES = ["french", "german"];
  const shown = {};
  let nDecisions = 0, nDice = 0, choices = [], busy = false;
  function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }
  function setBusy(b) { busy = b; document.body.dataset.busy = b ? "1" : "0"; }
  async function call(method, url, body) {
    const sep = url.includes("?") ? "&" : "?";
    const r = await fetch(url + sep + "since_decision=" + nDecisions + "&since_dice=" + nDice,
      { method: method, headers: { "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || ("HTTP " + r.status));
    return j;
  }
  function draw(v) {
    for (const name of D.order) {
      const s = v.layers[name];
      if (s !== undefined && shown[name] !== s) { $("layer-" + name).innerHTML = s; shown[name] = s; }
    }
    for (const d of v.log) {
      const div = document.createElement("div");
      div.className = d[1] ? "auto" : "";
      div.innerHTML = '<span class="' + d[0] + '">' + d[0][0].toUpperCase() + "</span> " + esc(d[2]) + ' <span class="keys">' + esc(d[3]) + "</span>";
      $("log").appendChild(div);
    }
    if (v.log.length) $("log").scrollTop = $("log").scrollHeight;
    nDecisions = v.n_decisions;
    for (const d of v.dice) { const b = document.createElement("b"); b.className = "die"; b.title = d[1]; b.textContent = d[0]; $("dice").prepend(b); }
    nDice = v.n_dice;
    choices = v.choices;
    $("choices").innerHTML = choices.map((c, i) => '<button data-i="' + i + '" data-a="' + c.a + '">' + esc(c.text) + "</button>").join("");
    document.querySelectorAll("#map .pickable").forEach((e) => e.classList.remove("pickable"));
    for (const c of choices) {
      if (c.unit) document.querySelectorAll('#map g.unit[data-unit="' + c.unit + '"]').forEach((e) => e.classList.add("pickable"));
      else if (c.loc) document.querySelectorAll('#map g.loc[data-loc="' + c.loc + '"]').forEach((e) => e.classList.add("pickable"));
    }
    $("who").textContent = v.terminal ? "game over: " + (v.winner || "") + " won" : (v.human_to_move ? "your decision: " : "bot: ") + v.at;
    $("download").hidden = !v.record_ready;  // S59: the record shows the hidden markers (issue 61)
    if (v.saved) $("saved").textContent = "record written to " + v.saved.record + "; viewer " + v.saved.viewer;
    document.body.dataset.human = v.human_to_move ? "1" : "0";
    document.body.dataset.decision = v.decision;
    document.body.dataset.decisions = String(v.n_decisions);
    document.body.dataset.terminal = v.terminal ? "1" : "0";
    return v;
  }
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function bots(v) {
    while (!v.terminal && !v.human_to_move) {
      await sleep($("fast").checked ? 20 : 300);
      v = draw(await call("POST", "/api/bot"));
      if (!v.moved) break;
    }
    return v;
  }
  async function act(a) {
    if (busy) return;
    setBusy(true);
    $("error").textContent = "";
    try { await bots(draw(await call("POST", "/api/act", { action: a }))); }
    catch (e) { $("error").textContent = String(e.message || e); }
    setBusy(false);
  }
  $("choices").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (b) act(Number(b.dataset.a));
  });
  $("map").addEventListener("click", (e) => {
    const u = e.target.closest("g.unit.pickable");
    if (u) { const c = choices.find((x) => x.unit === u.dataset.unit); if (c) { act(c.a); return; } }
    const l = e.target.closest("g.loc.pickable");
    if (!l) return;
    const here = choices.filter((x) => x.loc === l.dataset.loc && !x.unit);
    if (here.length === 1) act(here[0].a);
    else document.querySelectorAll("#choices button").forEach((b) => {
      b.style.fontWeight = here.some((x) => String(x.a) === b.dataset.a) ? "bold" : ""; });
  });
  $("title").textContent = "seed " + D.seed + " - " + SIDES.map((s) => s + ": " + (D.players[s] === "human" ? "you" : D.players[s])).join(", ");
  (async function start() {
    setBusy(true);
    try { await bots(draw(await call("GET", "/api/state"))); }
    catch (e) { $("error").textContent = String(e.message || e); }
    setBusy(false);
    document.body.dataset.ready = "1";
  })();
})();
