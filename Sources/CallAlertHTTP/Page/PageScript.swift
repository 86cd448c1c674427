/// The page's one script, shipped in the binary: it listens to the daemon's events (Server-Sent Events on
/// `/page/events`) and, for each, fetches the live view's sections again and puts in those that changed, so a
/// call shows within a few milliseconds of its event; it counts the seconds a call has left and sets the
/// tab's title. Boards that connect or go away send no event: the sections are also fetched every 5 s.
/// Everything works without it: the page is whole as served, and every button is a plain form.
enum PageScript {
  static let javascript = """
    "use strict";
    (function () {
      document.querySelectorAll("form[data-check]").forEach(function (editor) {
        if (!window.fetch) { return; }
        var timer = null;
        var where = editor.getAttribute("data-check");
        var resultID = editor.getAttribute("data-result");
        editor.querySelector("textarea").addEventListener("input", function () {
          clearTimeout(timer);
          timer = setTimeout(function () {
            fetch(where, {
              method: "POST", credentials: "same-origin", body: new URLSearchParams(new FormData(editor))
            })
              .then(function (response) { return response.ok ? response.text() : null; })
              .then(function (html) {
                if (html === null) { return; }
                var template = document.createElement("template");
                template.innerHTML = html;
                var fresh = template.content.getElementById(resultID);
                var old = document.getElementById(resultID);
                if (fresh && old) { old.innerHTML = fresh.innerHTML; }
              })
              .catch(function () {});
          }, 300);
        });
      });
      var flash = document.getElementById("flash");
      if (flash && window.fetch && flash.getAttribute("data-active") === "true") {
        var follow = function () {
          fetch("/page/patterns/flash.part", { credentials: "same-origin", cache: "no-store" })
            .then(function (response) { return response.ok ? response.text() : null; })
            .then(function (html) {
              if (html === null) { return; }
              var template = document.createElement("template");
              template.innerHTML = html;
              var fresh = template.content.getElementById("flash");
              if (!fresh) { return; }
              flash.innerHTML = fresh.innerHTML;
              flash.setAttribute("data-active", fresh.getAttribute("data-active"));
              if (fresh.getAttribute("data-active") === "true") { setTimeout(follow, 300); }
            })
            .catch(function () { setTimeout(follow, 1000); });
        };
        setTimeout(follow, 300);
      }
      var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      document.querySelectorAll(".preview").forEach(function (preview) {
        var button = preview.querySelector("button");
        var words = preview.querySelector(".now");
        var head = preview.querySelector(".head");
        var name = button.textContent.replace(/^Play /, "");
        var segments = preview.getAttribute("data-timeline").split(";").filter(Boolean).map(function (text) {
          return text.split(",").map(Number);
        });
        var length = Number(preview.getAttribute("data-length"));
        var playing = null;
        preview.hidden = false;
        function stop() {
          if (!playing) { return; }
          cancelAnimationFrame(playing.frame);
          try { playing.oscillator.stop(); playing.context.close(); } catch (ignored) {}
          playing = null;
          button.textContent = "Play " + name;
          words.textContent = "Not playing.";
          head.style.transform = "";
        }
        function describe(ms) {
          var now = segments.find(function (s) { return ms >= s[0] && ms < s[0] + s[1]; });
          if (!now) { return "Silent."; }
          return (now[2] > 0 ? "Buzzer " + now[2] + " Hz" : "Buzzer off") + ", motor " +
            Math.round(now[4] * 100 / 255) + " %, LED " + (now[5] ? "on" : "off") +
            " (" + (ms / 1000).toFixed(1) + " s of " + (length / 1000).toFixed(1) + " s)";
        }
        button.addEventListener("click", function () {
          if (playing) { stop(); return; }
          var Context = window.AudioContext || window.webkitAudioContext;
          var context = new Context();
          var oscillator = context.createOscillator();
          var gain = context.createGain();
          oscillator.type = "square";
          gain.gain.value = 0;
          oscillator.connect(gain);
          gain.connect(context.destination);
          var start = context.currentTime + 0.05;
          segments.forEach(function (s) {
            var at = start + s[0] / 1000;
            if (s[2] > 0) { oscillator.frequency.setValueAtTime(s[2], at); }
            gain.gain.setValueAtTime(s[2] > 0 ? 0.15 * s[3] / 255 : 0, at);
          });
          gain.gain.setValueAtTime(0, start + length / 1000);
          oscillator.start(start);
          oscillator.stop(start + length / 1000 + 0.05);
          var began = performance.now() + 50;
          playing = { context: context, oscillator: oscillator, frame: 0 };
          button.textContent = "Stop " + name;
          function frame() {
            var ms = Math.max(0, performance.now() - began);
            if (ms >= length) { stop(); return; }
            words.textContent = describe(ms);
            if (!still) { head.style.transform = "translateX(" + (ms / length * (preview.clientWidth - 4)) + "px)"; }
            playing.frame = requestAnimationFrame(frame);
          }
          playing.frame = requestAnimationFrame(frame);
        });
      });
      var live = document.getElementById("live");
      if (!live || !window.EventSource || !window.fetch) { return; }
      var loadedAt = Date.now();
      var busy = false, again = false;
      function tick() {
        var spent = Date.now() - loadedAt;
        live.querySelectorAll("[data-remaining-ms]").forEach(function (element) {
          var left = Math.max(0, Math.ceil((Number(element.getAttribute("data-remaining-ms")) - spent) / 1000));
          var text = left + " s left";
          if (element.textContent !== text) { element.textContent = text; }
        });
      }
      function put(html) {
        var template = document.createElement("template");
        template.innerHTML = html;
        var next = template.content.getElementById("live");
        if (!next) { return; }
        var focused = document.activeElement && document.activeElement.id;
        var times = Array.prototype.map.call(next.querySelectorAll("[data-remaining-ms]"), function (element) {
          return element.getAttribute("data-remaining-ms");
        });
        next.querySelectorAll("section[id]").forEach(function (section) {
          var old = document.getElementById(section.id);
          if (!old) { live.appendChild(section); return; }
          if (old.getAttribute("data-state") !== section.getAttribute("data-state")) { old.replaceWith(section); }
        });
        document.title = next.getAttribute("data-title");
        loadedAt = Date.now();
        live.querySelectorAll("[data-remaining-ms]").forEach(function (element, index) {
          if (index < times.length) { element.setAttribute("data-remaining-ms", times[index]); }
        });
        if (focused && document.activeElement === document.body) {
          var previous = document.getElementById(focused);
          if (previous) { previous.focus(); }
        }
        tick();
      }
      function refresh() {
        if (busy) { again = true; return; }
        busy = true;
        fetch("/page/live.part", { credentials: "same-origin", cache: "no-store" })
          .then(function (response) { return response.ok ? response.text() : null; })
          .then(function (html) { if (html !== null) { put(html); } })
          .catch(function () {})
          .then(function () { busy = false; if (again) { again = false; refresh(); } });
      }
      var events = new EventSource("/page/events");
      ["ringing", "stopped", "missed", "suppressed", "missed_acknowledged", "ignored", "pattern_fallback",
       "calls_refused", "dnd_ended", "lost"].forEach(function (name) { events.addEventListener(name, refresh); });
      events.addEventListener("open", function () {
        document.body.setAttribute("data-events", "open");
        refresh();
      });
      events.addEventListener("error", function () { document.body.setAttribute("data-events", "closed"); });
      setInterval(refresh, 5000);
      setInterval(tick, 1000);
    })();

    """
}
