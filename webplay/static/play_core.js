// The browser play loop every game's page shares: fetch the position the human may see, draw it through the
// game's hooks, offer the human's legal choices as buttons (and on the map, through the hooks), and let the
// bots move one decision at a time with a pause, so that their moves are seen. A game's play.js calls
// PlayCore(hooks) with:
//   layers(v)           draw the position's layers of the view v (GET /api/state);
//   die(d)              [text, title] of one of the view's new dice;
//   picks(v, choices)   mark on the map where each choice is picked (and draw what else the view shows);
//   mapPick(e, choices, act)  the choices at the map place clicked (not a unit), or null: nothing there;
//   markHere(here)      show in the list which choices a map click left to pick from;
//   title(players)      the page's title line from "french: you, german: heuristic".
"use strict";
window.PlayCore = function (hooks) {
  const $ = (id) => document.getElementById(id);
  const SIDES = ["french", "german"];
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
    hooks.layers(v);
    for (const d of v.log) {
      const div = document.createElement("div");
      div.className = d[1] ? "auto" : "";
      div.innerHTML = '<span class="' + d[0] + '">' + d[0][0].toUpperCase() + "</span> " + esc(d[2]) + ' <span class="keys">' + esc(d[3]) + "</span>";
      $("log").appendChild(div);
    }
    if (v.log.length) $("log").scrollTop = $("log").scrollHeight;
    nDecisions = v.n_decisions;
    for (const d of v.dice) {
      const [text, title] = hooks.die(d), b = document.createElement("b");
      b.className = "die"; b.title = title; b.textContent = text; $("dice").prepend(b);
    }
    nDice = v.n_dice;
    choices = v.choices;
    $("choices").innerHTML = choices.map((c, i) => '<button data-i="' + i + '" data-a="' + c.a + '">' + esc(c.text) + "</button>").join("");
    hooks.picks(v, choices);
    $("who").textContent = v.terminal ? "game over: " + (v.winner || "") + " won" : (v.human_to_move ? "your decision: " : "bot: ") + v.at;
    $("download").hidden = !v.record_ready;  // a record shows what the rules hide: only once the game is over
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
    const here = hooks.mapPick(e, choices, act);
    if (!here) return;
    if (here.length === 1) act(here[0].a);
    else hooks.markHere(here);
  });
  $("title").textContent = hooks.title(SIDES.map((s) => s + ": " + (hooks.players[s] === "human" ? "you" : hooks.players[s])).join(", "));
  (async function start() {
    setBusy(true);
    try { await bots(draw(await call("GET", "/api/state"))); }
    catch (e) { $("error").textContent = String(e.message || e); }
    setBusy(false);
    document.body.dataset.ready = "1";
  })();
};
