// idgen-server console: a little plain JavaScript over pages that work without it.
// It refreshes the fleet and tags every few seconds (fetching the page itself and
// replacing the parts marked data-refresh), shrinks the lease bars between refreshes,
// and fills the decode form's zone with the browser's own when it is empty.
"use strict";
(function () {
  var REFRESH_MS = 3000;
  var page = document.body.getAttribute("data-page");

  function leaseBars() {
    var start = performance.now();
    var bars = Array.prototype.slice.call(document.querySelectorAll("meter.lease"));
    bars.forEach(function (m) {
      var left = Number(m.getAttribute("data-left-ms"));
      var label = m.parentNode.querySelector(".lease-left");
      function tick() {
        if (!m.isConnected) return;
        var now = Math.max(0, left - (performance.now() - start));
        m.value = now;
        if (label) label.textContent = (now / 1000).toFixed(1) + " s";
        if (now > 0) requestAnimationFrame(tick);
      }
      requestAnimationFrame(tick);
    });
  }

  function refresh() {
    // Keep the page still while someone is typing in it or has focus in a table.
    var active = document.activeElement;
    if (active && active.closest && active.closest("[data-refresh]")) return schedule();
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (res) {
        if (res.status !== 200) throw new Error(String(res.status));
        return res.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelectorAll("[data-refresh]");
        var old = document.querySelectorAll("[data-refresh]");
        if (fresh.length !== old.length) return;
        for (var i = 0; i < old.length; i++) old[i].replaceWith(document.importNode(fresh[i], true));
        document.body.setAttribute("data-refreshed", String(Date.now()));
        leaseBars();
      })
      .catch(function () { /* the next refresh tries again */ })
      .then(schedule);
  }

  function schedule() { setTimeout(refresh, REFRESH_MS); }

  if (page === "fleet" || page === "tags") {
    leaseBars();
    schedule();
  }
  if (page === "decode") {
    var zone = document.getElementById("zone");
    if (zone && !zone.value && window.Intl) {
      try { zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* UTC then */ }
    }
  }
})();
