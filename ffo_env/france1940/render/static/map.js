// France 1940: the map's layers, shared by the replay viewer and browser play. A layer named h<n> is the stack
// of hex n (in <g id="units">); forts, air, status and panel have their own groups.
"use strict";
const F40Map = (function () {
  const NS = "http://www.w3.org/2000/svg";
  const shown = {};
  function set(name, svg) {
    if (shown[name] === svg) return;
    if (name[0] === "h") {
      let g = document.getElementById("L-" + name);
      if (!svg) { if (g) g.remove(); delete shown[name]; return; }
      if (!g) { g = document.createElementNS(NS, "g"); g.id = "L-" + name; document.getElementById("units").appendChild(g); }
      g.innerHTML = svg;
    } else {
      document.getElementById("layer-" + name).innerHTML = svg;
    }
    shown[name] = svg;
  }
  function setAll(layers) {  // the full drawing: hex layers that are not in it are removed
    for (const name of Object.keys(shown)) if (name[0] === "h" && !(name in layers)) set(name, "");
    for (const name of Object.keys(layers)) set(name, layers[name]);
  }
  function showIds(on) { document.getElementById("map").classList.toggle("ids", on); }
  return { set: set, setAll: setAll, showIds: showIds };
})();
