// Browser play of France 1940: draw the server's layers (the human's side's view), offer the human's legal
// choices (as buttons and as highlighted hexes and units on the map), and let the bots move one decision at a time.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("f40-data").textContent);
  const $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
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
  function hexPoints(n) {
    const [x, y] = D.centres[n], pts = [];
    for (let k = 0; k < 6; k++) pts.push((x + D.r * Math.cos(Math.PI / 3 * k)).toFixed(1) + "," + (y + D.r * Math.sin(Math.PI / 3 * k)).toFixed(1));
    return pts.join(" ");
  }
  function drawPicks() {
    const g = $("picks");
    g.innerHTML = "";
    const hexes = new Set(choices.filter((c) => c.hex && !c.unit).map((c) => c.hex));
    for (const h of hexes) {
      const p = document.createElementNS(NS, "polygon");
      p.setAttribute("class", "pick");
      p.setAttribute("points", hexPoints(h));
      p.dataset.hex = String(h);
      g.appendChild(p);
    }
    document.querySelectorAll("#map .pickable").forEach((e) => e.classList.remove("pickable"));
    for (const c of choices) {
      if (c.unit) document.querySelectorAll('#map g.unit[data-unit="' + c.unit + '"]').forEach((e) => e.classList.add("pickable"));
    }
  }
  function draw(v) {
    F40Map.setAll(v.layers);
    for (const d of v.log) {
      const div = document.createElement("div");
      div.className = d[1] ? "auto" : "";
      div.innerHTML = '<span class="' + d[0] + '">' + d[0][0].toUpperCase() + "</span> " + esc(d[2]) + ' <span class="keys">' + esc(d[3]) + "</span>";
      $("log").appendChild(div);
    }
    if (v.log.length) $("log").scrollTop = $("log").scrollHeight;
    nDecisions = v.n_decisions;
    for (const d of v.dice) { const b = document.createElement("b"); b.className = "die"; b.title = d[0]; b.textContent = d[1]; $("dice").prepend(b); }
    nDice = v.n_dice;
    $("events").innerHTML = v.events.slice().reverse().map((e) => "<div>" + esc(e.join(" ")) + "</div>").join("") || "(none)";
    choices = v.choices;
    $("choices").innerHTML = choices.map((c, i) => '<button data-i="' + i + '" data-a="' + c.a + '">' + esc(c.text) + "</button>").join("");
    drawPicks();
    $("score").textContent = "GT" + v.turn + " - VP Allied " + v.vp[0] + ", German " + v.vp[1] + " - armies: Allied " + v.columns[0] + ", German " + v.columns[1];
    $("who").textContent = v.terminal ? "game over: " + (v.winner || "") + " won" : (v.human_to_move ? "your decision: " : "bot: ") + v.at;
    $("download").hidden = !v.record_ready;  // the record holds the dice generator: only once the game is over
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
    const stack = e.target.closest("g.stack");  // a stack whose one pickable unit lies under another counter
    if (stack) {
      const ps = stack.querySelectorAll("g.unit.pickable");
      if (ps.length === 1) { const c = choices.find((x) => x.unit === ps[0].dataset.unit); if (c) { act(c.a); return; } }
    }
    const p = e.target.closest("polygon.pick");
    if (!p) return;
    const here = choices.filter((x) => String(x.hex) === p.dataset.hex && !x.unit);
    if (here.length === 1) act(here[0].a);
    else document.querySelectorAll("#choices button").forEach((b) => {
      b.classList.toggle("here", here.some((x) => String(x.a) === b.dataset.a)); });
  });
  $("ids").onchange = () => F40Map.showIds($("ids").checked);
  if (new URLSearchParams(location.search).has("fast")) $("fast").checked = true;  // /?fast: bots 20 ms apart
  $("title").textContent = SIDES.map((s) => s + ": " + (D.players[s] === "human" ? "you" : D.players[s])).join(", ");
  (async function start() {
    setBusy(true);
    try { await bots(draw(await call("GET", "/api/state"))); }
    catch (e) { $("error").textContent = String(e.message || e); }
    setBusy(false);
    document.body.dataset.ready = "1";
  })();
})();
