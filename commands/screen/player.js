// A player's page: show the roll the GM's command waits for (polled every second) and answer it once.
(function () {
  "use strict";
  var box = document.getElementById("ask");
  var path = box.getAttribute("data-path");
  var state = JSON.parse(box.getAttribute("data-state"));
  var pending = document.getElementById("pending"), idle = document.getElementById("idle");
  var what = document.getElementById("what"), said = document.getElementById("said");
  var faces = document.getElementById("faces"), shown = state.request ? state.request.id : null;
  function show() {
    var r = state.request;
    pending.hidden = !r;
    idle.hidden = !!r;
    if (r) {
      what.textContent = "The GM asks for " + r.what + " (" + r.notation + ")";
      faces.placeholder = r.fudge ? "+,0,-" : "6,4,1";
      if (r.id !== shown) { said.textContent = ""; shown = r.id; }
    }
  }
  function poll() {
    fetch(path + "/request", { cache: "no-store", credentials: "same-origin" })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (s) { if (s) { state = s; show(); } })
      .catch(function () {});
  }
  function hex(bytes) {
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function send(answer) {
    if (!state.request) { return; }
    answer.request = state.request.id;
    answer.nonce = state.nonce;
    state = { request: null, nonce: null };  // one tap: the next roll comes with its own nonce
    show();
    said.textContent = "sending…";
    fetch(path + "/roll", {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(answer)
    }).then(function (res) { return res.json(); })
      .then(function (r) { said.textContent = r.message + (answer.seed ? " (your seed: " + answer.seed + ")" : ""); })
      .catch(function () { said.textContent = "not sent: the server did not answer"; });
  }
  document.getElementById("roll").addEventListener("click", function () {
    var seed = new Uint8Array(16);
    window.crypto.getRandomValues(seed);
    send({ seed: hex(seed) });
  });
  document.getElementById("typed").addEventListener("submit", function (ev) {
    ev.preventDefault();
    send({ faces: faces.value });
    faces.value = "";
  });
  var hero = (box.getAttribute("data-hero") || "").toLowerCase(), wasUp = false;
  function turn() {  // "You're up" / "Up next" for this page's hero, after every update of the shared screen
    var bar = document.getElementById("turnbar"), you = document.getElementById("you");
    if (!bar || !you) { return; }
    var up = (bar.getAttribute("data-current") || "").toLowerCase() === hero;
    var soon = !up && (bar.getAttribute("data-next") || "").toLowerCase() === hero;
    you.textContent = up ? "You're up" : soon ? "Up next" : "";
    you.hidden = !(up || soon);
    you.className = soon ? "you soon" : "you";
    if (up && !wasUp && navigator.vibrate) { navigator.vibrate(200); }
    wasUp = up;
  }
  document.addEventListener("screen-updated", turn);
  turn();
  show();
  setInterval(poll, 1000);
})();
