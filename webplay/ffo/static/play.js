// Web play: the human picks among the legal choices the server sends; bot decisions are fetched one at a
// time and drawn with the counters gliding to their new hexes.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("ffo-data").textContent);
  const units = D.units, names = D.hex_names;
  const board = FFO.initBoard(document.getElementById("board"), D.geo, D.map);
  const $ = (id) => document.getElementById(id);
  let nDice = 0, nDec = 0, view = null, busy = false, filterHex = null;
  const logLines = [], diceLines = [];
  $("title").textContent = `Seed ${D.seed} - French: ${D.players.french}, German: ${D.players.german}`;
  let turns = "";
  for (let t = 1; t <= D.last_turn; t++) turns += `<span data-t="${t}">${t}</span>`;
  $("turns").innerHTML = turns;
  const picks = FFO.el("g", { id: "picks" }, board.svg);

  async function call(method, url, body) {
    const sep = url.includes("?") ? "&" : "?";
    const r = await fetch(`${url}${sep}since_dice=${nDice}&since_decision=${nDec}`, {
      method: method, headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined });
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || r.statusText);
    return j;
  }

  function absorb(v) {
    for (const x of v.dice) diceLines.push(x);
    nDice += v.dice.length;
    for (const r of v.log) logLines.push(r);
    nDec = v.n_decisions;
  }

  function render(v, animate) {
    view = v;
    const p = v.pos;
    const choices = v.choices;
    const hexChoices = new Map();
    for (const c of choices) if (c.hex !== undefined) {
      if (!hexChoices.has(c.hex)) hexChoices.set(c.hex, []);
      hexChoices.get(c.hex).push(c);
    }
    FFO.draw(board, units, p, { highlight: [...hexChoices.keys()], target: v.battle ? v.battle.hex : null, selected: v.selected,
      animate: animate });
    picks.innerHTML = "";
    for (const [h, cs] of hexChoices) {  // click targets over legal hexes (above the counters)
      const poly = FFO.el("polygon", { points: FFO.hexPoints(board.geo, h, 0.9), fill: "rgba(255,212,0,0.12)",
        class: "legal", "data-hex": h, "data-n": cs.length }, picks);
      poly.addEventListener("click", () => pickHex(h));
    }
    $("turn").textContent = p.turn;
    $("phase").textContent = p.phase.replace(/_/g, " ").toLowerCase();
    $("vp").textContent = p.vp;
    $("vp").dataset.vp = p.vp;
    document.querySelectorAll("#turns span").forEach((e) => e.classList.toggle("now", Number(e.dataset.t) === p.turn));
    const who = p.terminal ? `game over: ${p.winner} victory with ${p.vp} VP`
      : `${p.player} (${D.players[p.player]}) to decide: ${p.decision.replace(/_/g, " ").toLowerCase()}`;
    $("who").textContent = who;
    document.body.dataset.decision = p.decision;
    document.body.dataset.player = p.player;
    document.body.dataset.human = v.human_to_move ? "1" : "0";
    document.body.dataset.terminal = p.terminal ? "1" : "0";
    document.body.dataset.decisions = String(v.n_decisions);
    renderChoices();
    $("battle").innerHTML = FFO.battleHtml(v.battle, units, names, p) || "no battle";
    $("dice").innerHTML = diceLines.slice(-8).reverse().map((x) => `<div><b class="die">${x.die !== undefined ? x.die : x.pick}</b> GT${x.turn} ${FFO.esc(x.for)}</div>`).join("") || "-";
    $("log").innerHTML = logLines.slice(-60).map((r, i, a) => `<div class="${r[1] ? "auto" : ""} ${r[0]}${i === a.length - 1 ? " cur" : ""}">${FFO.esc(r[3] ? r[3].split(" ")[0] : "")} ${r[0] === "french" ? "F" : "G"}: ${FFO.esc(r[2])}</div>`).join("");
    $("log").scrollTop = $("log").scrollHeight;
    if (v.saved) $("saved").innerHTML = `<h2>Saved</h2>record: <code>${FFO.esc(v.saved.record)}</code><br>viewer: <code>${FFO.esc(v.saved.viewer)}</code>`;
    else if (p.terminal) $("saved").innerHTML = `<h2>Game over</h2><a href="/api/record" download>download the game record</a>`;
  }

  function renderChoices() {
    const box = $("choices");
    box.innerHTML = "";
    if (!view.human_to_move) {
      box.innerHTML = view.pos.terminal ? "" : `<div class="auto">waiting for the ${FFO.esc(view.pos.player)} bot...</div>`;
      $("filter").textContent = "";
      return;
    }
    const shown = filterHex === null ? view.choices : view.choices.filter((c) => c.hex === filterHex);
    $("filter").textContent = filterHex === null ? `(${view.choices.length})` : `in ${names[filterHex]} (show all: click here)`;
    $("filter").onclick = () => { filterHex = null; renderChoices(); };
    for (const c of shown) {
      const b = document.createElement("button");
      b.textContent = c.text;
      b.className = c.kind + "act";
      b.dataset.action = c.a;
      b.onclick = () => act(c.a);
      box.appendChild(b);
    }
  }

  function pickHex(h) {
    if (!view || !view.human_to_move || busy) return;
    const cs = view.choices.filter((c) => c.hex === h);
    if (cs.length === 1) act(cs[0].a);
    else if (cs.length > 1) { filterHex = h; renderChoices(); }
  }
  board.svg.querySelector("#overlay").addEventListener("click", (e) => {
    const g = e.target.closest("g.counter");
    if (g) pickHex(Number(g.dataset.hex));
  });

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function runBots() {
    while (view && !view.human_to_move && !view.pos.terminal) {
      const v = await call("POST", "/api/bot");
      absorb(v);
      render(v, true);
      if (!v.moved) break;
      await sleep($("fast").checked ? 20 : 380);
    }
  }

  async function act(a) {
    if (busy) return;
    busy = true;
    document.body.dataset.busy = "1";
    $("msg").textContent = "";
    filterHex = null;
    try {
      const v = await call("POST", "/api/act", { action: a });
      absorb(v);
      render(v, true);
      await runBots();
    } catch (err) {
      $("msg").textContent = String(err.message || err);
    } finally {
      busy = false;
      document.body.dataset.busy = "0";
    }
  }

  $("zoom").oninput = () => { const z = Number($("zoom").value) / 100; board.svg.style.width = (D.geo.w * z) + "px"; board.svg.style.height = (D.geo.h * z) + "px"; };

  (async function start() {
    busy = true;
    document.body.dataset.busy = "1";
    try {
      const v = await call("GET", "/api/state");
      absorb(v);
      render(v, false);
      // scroll to the front line: the first legal hex, or the middle of the occupied hexes
      const first = v.choices.find((c) => c.hex !== undefined);
      if (first) { const w = $("mapwrap"); w.scrollTo(D.geo.cx[first.hex] - w.clientWidth / 2, D.geo.cy[first.hex] - w.clientHeight / 2); }
      await runBots();
    } catch (err) {
      $("msg").textContent = String(err.message || err);
    } finally {
      busy = false;
      document.body.dataset.busy = "0";
      document.body.dataset.ready = "1";
    }
  })();
  window.ffoPlay = { view: () => view, act: act };
})();
