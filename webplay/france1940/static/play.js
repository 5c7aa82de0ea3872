// Browser play of France 1940: the game's part of the shared play loop (webplay/static/play_core.js): draw the
// server's layers (the human's side's view), the score and the latest events, and mark the hexes and units
// where the human's choices are picked.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("f40-data").textContent);
  const $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
  function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }
  function hexPoints(n) {
    const [x, y] = D.centres[n], pts = [];
    for (let k = 0; k < 6; k++) pts.push((x + D.r * Math.cos(Math.PI / 3 * k)).toFixed(1) + "," + (y + D.r * Math.sin(Math.PI / 3 * k)).toFixed(1));
    return pts.join(" ");
  }
  function drawPicks(choices) {
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
  $("ids").onchange = () => F40Map.showIds($("ids").checked);
  if (new URLSearchParams(location.search).has("fast")) $("fast").checked = true;  // /?fast: bots 20 ms apart
  PlayCore({
    players: D.players,
    layers: (v) => F40Map.setAll(v.layers),
    die: (d) => [d[1], d[0]],
    picks(v, choices) {
      $("events").innerHTML = v.events.slice().reverse().map((e) => "<div>" + esc(e.join(" ")) + "</div>").join("") || "(none)";
      drawPicks(choices);
      $("score").textContent = "GT" + v.turn + " - VP Allied " + v.vp[0] + ", German " + v.vp[1] + " - armies: Allied " + v.columns[0] + ", German " + v.columns[1];
    },
    mapPick(e, choices, act) {
      const stack = e.target.closest("g.stack");  // a stack whose one pickable unit lies under another counter
      if (stack) {
        const ps = stack.querySelectorAll("g.unit.pickable");
        if (ps.length === 1) { const c = choices.find((x) => x.unit === ps[0].dataset.unit); if (c) { act(c.a); return null; } }
      }
      const p = e.target.closest("polygon.pick");
      return p ? choices.filter((x) => String(x.hex) === p.dataset.hex && !x.unit) : null;
    },
    markHere(here) {
      document.querySelectorAll("#choices button").forEach((b) => {
        b.classList.toggle("here", here.some((x) => String(x.a) === b.dataset.a)); });
    },
    title: (players) => players,
  });
})();
