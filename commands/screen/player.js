// A player's page: the roll the GM's command waits for, pushed on the page's live connection (Server-Sent Events),
// answered with one tap; the hero's own dice card and sheet; "You're up" / "Up next" on the turn bar; the hero's asks
// as the log records them, with a warning when the log does not show what this page sent (docs/serve.md).
(function () {
  "use strict";
  var box = document.getElementById("ask");
  var path = box.getAttribute("data-path");
  var state = JSON.parse(box.getAttribute("data-state"));
  var pending = document.getElementById("pending"), idle = document.getElementById("idle");
  var what = document.getElementById("what"), said = document.getElementById("said");
  var list = document.getElementById("asks"), mine = document.getElementById("mine");
  var faces = document.getElementById("faces"), shown = state.request ? state.request.id : null;
  var hero = (box.getAttribute("data-hero") || "").toLowerCase(), wasUp = false, sentAt = null, lastSeed = "", freshSeq = "";
  var sentKey = "ledger-sent:" + path;  // what this page sent, by ask: {ask: seed}, kept in this browser only
  function sent() {
    try { return JSON.parse(window.localStorage.getItem(sentKey) || "{}") || {}; } catch (e) { return {}; }
  }
  function remember(ask, seed) {
    var s = sent();
    s[ask] = seed;
    try { window.localStorage.setItem(sentKey, JSON.stringify(s)); } catch (e) { /* private mode: not kept */ }
  }
  function show() {
    var r = state.request;
    pending.hidden = !r;
    idle.hidden = !!r;
    if (r) {
      what.textContent = "The GM asks for " + r.what + " (" + r.notation + "): ask of ruling " + r.ask +
        ", committed roll " + r.counter + (r.also && r.also.length ?
          ". The same tap rolls, if the rules need them: " + r.also.join(", ") : "");
      faces.placeholder = r.fudge ? "+,0,-" : "6,4,1";
      if (r.id !== shown) { said.textContent = ""; shown = r.id; }
    } else if (state.status && sentAt === null) {
      var noted = sent()[state.status.ask];
      said.textContent = state.status.text + (noted ? " (your seed: " + noted + ")" : "");
    }
    var mySeeds = sent(), warnings = [];
    while (list.firstChild) { list.removeChild(list.firstChild); }
    (state.asks || []).forEach(function (a) {
      var li = document.createElement("li");
      li.setAttribute("data-ask", a.ask);
      li.textContent = "ruling " + a.ask + ": " + a.roll + " roll, committed roll " + a.counter + " of session " +
        a.session + ": " + a.fate + (a.why ? " (" + a.why + ")" : "") + (a.seed ? "; seed " + a.seed : "");
      list.appendChild(li);
      var own = mySeeds[a.ask];
      if (own && a.fate !== "open" && a.seed !== own) {
        warnings.push("you answered the ask of ruling " + a.ask + " with seed " + own + ", but the log says " +
          a.fate + (a.seed ? " with seed " + a.seed : "") + ": your roll was not used");
      }
    });
    mine.textContent = warnings.join(". ");
  }
  // The live connection pushes every change of the request; a look every 2 s while a roll is offered or sent also
  // catches a GM's command that stopped waiting without a word (the page then stops offering the roll).
  function look() {
    if (!state.request && sentAt === null) { return; }
    fetch(path + "/request", { cache: "no-store", credentials: "same-origin" })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (s) {
        if (s) { state = s; show(); } else { said.textContent = "this page's link no longer works"; }
      })
      .catch(function () {
        if (state.request) { state = { request: null, nonce: null, status: null, asks: state.asks }; show(); }
        said.textContent = "the screen's server does not answer: nothing can be sent now";
      });
  }
  function newest() {
    var first = document.querySelector("#card .roll-line");
    return first ? Number(first.getAttribute("data-seq")) : 0;
  }
  function hex(bytes) {
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function send(answer) {
    if (!state.request) { return; }
    var ask = state.request.ask;
    answer.request = state.request.id;
    answer.nonce = state.nonce;
    if (answer.seed) { remember(ask, answer.seed); }
    state = { request: null, nonce: null, status: null, asks: state.asks };  // one tap: the next roll has its own nonce
    show();
    said.textContent = "sending…";
    sentAt = newest();
    lastSeed = answer.seed || "";
    fetch(path + "/roll", {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(answer)
    }).then(function (res) { return res.json(); })
      .then(function (r) {
        if (sentAt === null) { return; }  // the ruling came first: the card says it all
        said.textContent = r.message + (answer.seed ? " (your seed: " + answer.seed + ")" : "");
        if (!r.ok) { sentAt = null; }
      })
      .catch(function () { said.textContent = "not sent: the server did not answer"; sentAt = null; });
  }
  function turn() {  // "You're up" / "Up next" for this page's hero, after every update of the shared screen
    var bar = document.getElementById("turnbar"), you = document.getElementById("you");
    if (!bar || !you) { return; }
    var up = (bar.getAttribute("data-current") || "").toLowerCase() === hero;
    var soon = !up && (bar.getAttribute("data-next") || "").toLowerCase() === hero;
    you.textContent = up ? "You're up" : soon ? "Up next" : "";
    you.hidden = !(up || soon);
    you.className = soon ? "you soon" : "you";
    if (up && !wasUp && navigator.vibrate) { navigator.vibrate(200); }
    document.body.style.paddingTop = (bar.offsetHeight + 6) + "px";  // the fixed bar never covers the page's top
    wasUp = up;
  }
  function card(html) {  // the hero's part: a new roll of theirs clears what the page said while it waited
    var before = document.getElementById("choice"), picked = before ? before.value : null;
    document.getElementById("hero").innerHTML = html;
    var after = document.getElementById("choice");  // a push never undoes the player's pick
    if (after && picked && Array.prototype.some.call(after.options, function (o) { return o.value === picked; })) {
      after.value = picked;
    }
    if (sentAt !== null && newest() > sentAt) {
      said.textContent = lastSeed ? "your seed: " + lastSeed : "";
      sentAt = null;
      freshSeq = String(newest());
    }
    var fresh = freshSeq && document.querySelector('#card .roll-line[data-seq="' + freshSeq + '"]');
    if (fresh) { fresh.classList.add("fresh"); }  // stays marked when the part is pushed again
  }
  document.getElementById("roll").addEventListener("click", function () {
    // one seed per ask: asked again for an ask it answered, the page sends the same seed (a veto gains nothing)
    var kept = state.request ? sent()[state.request.ask] : null;
    if (kept) { send({ seed: kept }); return; }
    var seed = new Uint8Array(16);
    window.crypto.getRandomValues(seed);
    send({ seed: hex(seed) });
  });
  document.getElementById("typed").addEventListener("submit", function (ev) {
    ev.preventDefault();
    send({ faces: faces.value });
    faces.value = "";
  });
  document.addEventListener("submit", function (ev) {  // the action form lives in the hero's part, replaced live
    var form = ev.target;
    if (!form || form.id !== "act-form") { return; }
    ev.preventDefault();
    var nonce = form.getAttribute("data-nonce"), choice = document.getElementById("choice").value;
    form.setAttribute("data-nonce", "");  // one request per nonce: the next choices come with their own
    form.querySelector("button").disabled = true;
    said.textContent = "asking the GM…";
    fetch(path + "/act", {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ nonce: nonce, choice: choice })
    }).then(function (res) { return res.json(); })
      .then(function (r) { said.textContent = r.message; })
      .catch(function () { said.textContent = "not sent: the server did not answer"; });
  });
  document.addEventListener("screen-updated", turn);
  document.addEventListener("screen-source", function (ev) {  // the page's one live connection (screen.js)
    var source = ev.detail;
    source.addEventListener("ask", function (e) { state = JSON.parse(e.data); show(); });
    source.addEventListener("hero", function (e) { card(e.data); });
  });
  window.setInterval(look, 2000);
  turn();
  show();
})();
