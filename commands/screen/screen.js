// The players' screen: replace the page's content with each update the server pushes (Server-Sent Events).
(function () {
  "use strict";
  var screen = document.getElementById("screen");
  var live = document.getElementById("live");
  var source = new EventSource(screen.getAttribute("data-events"));
  document.dispatchEvent(new CustomEvent("screen-source", { detail: source }));  // a hero's page listens too
  source.addEventListener("screen", function (ev) {
    var head = ev.lastEventId;
    if (head && head === screen.getAttribute("data-head")) { live.textContent = "live"; return; }
    screen.innerHTML = ev.data;
    screen.setAttribute("data-head", head);
    document.dispatchEvent(new CustomEvent("screen-updated"));  // a hero's page marks its own turn (player.js)
    live.textContent = "live · updated " + new Date().toLocaleTimeString();
  });
  source.onopen = function () { live.textContent = "live"; };
  source.onerror = function () { live.textContent = "reconnecting…"; };
})();
