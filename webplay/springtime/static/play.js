// Browser play of Springtime for Hitler: the game's part of the shared play loop (webplay/static/play_core.js):
// draw the server's layers, and mark the locations and units where the human's choices are picked.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("sfh-data").textContent);
  const shown = {};
  PlayCore({
    players: D.players,
    layers(v) {
      for (const name of D.order) {
        const s = v.layers[name];
        if (s !== undefined && shown[name] !== s) { document.getElementById("layer-" + name).innerHTML = s; shown[name] = s; }
      }
    },
    die: (d) => [d[0], d[1]],
    picks(v, choices) {
      document.querySelectorAll("#map .pickable").forEach((e) => e.classList.remove("pickable"));
      for (const c of choices) {
        if (c.unit) document.querySelectorAll('#map g.unit[data-unit="' + c.unit + '"]').forEach((e) => e.classList.add("pickable"));
        else if (c.loc) document.querySelectorAll('#map g.loc[data-loc="' + c.loc + '"]').forEach((e) => e.classList.add("pickable"));
      }
    },
    mapPick(e, choices) {
      const l = e.target.closest("g.loc.pickable");
      return l ? choices.filter((x) => x.loc === l.dataset.loc && !x.unit) : null;
    },
    markHere(here) {
      document.querySelectorAll("#choices button").forEach((b) => {
        b.style.fontWeight = here.some((x) => String(x.a) === b.dataset.a) ? "bold" : ""; });
    },
    title: (players) => "seed " + D.seed + " - " + players,
  });
})();
