/*
 * Quire published site: the reader's side. No framework, no other origin.
 * - light/dark: follows the system; the toggle stores an explicit choice
 * - mobile navigation: the menu button opens the sidebar
 * - copy buttons on code blocks (button.copy-code) and the site's MCP address (button.copy-mcp-url)
 * - search: Ctrl/Cmd+K (or "/") opens a dialog; asks window.quireSearch(query, limit) when the
 *   page provides it (the static export), else GET {search}?q= on the site
 * - mermaid: loaded only when the page has a diagram (the config names the script), once one
 *   comes near the screen
 * - analytics consent: served sites (config.consent) ask once, unless the browser opts out
 * - a large site's navigation: sections collapsed to one link (li[data-nav-key]) become sections
 *   again, filled from the site's navigation file when first opened, and the runs of a long list
 *   left out of the page (li[data-nav-more]) come back (the file is fetched once, on the first use
 *   of the sidebar; its URL names its version, so the browser keeps it)
 */
(function () {
  "use strict";
  var script = document.currentScript;
  var nonce = (script && script.nonce) || "";
  var config = {};
  try {
    var el = document.getElementById("quire-site-config");
    if (el) config = JSON.parse(el.textContent || "{}");
  } catch (e) {
    config = {};
  }
  var root = document.documentElement;
  var MODE_KEY = "quire-site-mode";

  function systemDark() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function currentMode() {
    var m = root.dataset.mode;
    if (m === "light" || m === "dark") return m;
    return systemDark() ? "dark" : "light";
  }

  function ready(fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
  }

  ready(function () {
    // ---- light / dark ------------------------------------------------------------------------
    var toggle = document.querySelector(".mode-toggle");
    if (toggle) {
      toggle.addEventListener("click", function () {
        var next = currentMode() === "dark" ? "light" : "dark";
        root.dataset.mode = next;
        try {
          localStorage.setItem(MODE_KEY, next);
        } catch (e) {}
        document.dispatchEvent(new CustomEvent("quire:mode", { detail: next }));
      });
    }

    // ---- mobile navigation -------------------------------------------------------------------
    var navButton = document.querySelector(".nav-toggle");
    function setNav(open) {
      document.body.classList.toggle("nav-open", open);
      if (navButton) navButton.setAttribute("aria-expanded", open ? "true" : "false");
    }
    if (navButton) {
      navButton.addEventListener("click", function () {
        setNav(!document.body.classList.contains("nav-open"));
      });
    }
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && document.body.classList.contains("nav-open")) setNav(false);
    });

    // ---- a large site's navigation -------------------------------------------------------------
    var sidebar = document.getElementById("sidebar");
    var navFile = sidebar && sidebar.getAttribute("data-nav-file");
    if (navFile && sidebar.querySelector("li[data-nav-key], li[data-nav-more]")) {
      var navAsked = false;
      var askNav = function () {
        if (navAsked) return;
        navAsked = true;
        fetch(navFile, { credentials: "same-origin" })
          .then(function (r) {
            return r.ok ? r.json() : null;
          })
          .then(function (nav) {
            if (!nav || !nav.items) return;
            // Runs of a long list the page left out ("list:from:to"; list "" is the top) come back in place.
            var runs = sidebar.querySelectorAll("li[data-nav-more]");
            Array.prototype.forEach.call(runs, function (li) {
              var run = (li.getAttribute("data-nav-more") || "").split(":");
              var holder = run[0] === "" ? { c: nav.items } : navEntry(nav.items, run[0]);
              var from = Number(run[1]);
              var to = Number(run[2]);
              if (!holder || !holder.c || !(to <= holder.c.length) || !(from < to)) return;
              var filled = navList(holder.c.slice(from, to));
              while (filled.firstChild) li.parentNode.insertBefore(filled.firstChild, li);
              li.parentNode.removeChild(li);
            });
            var keyed = sidebar.querySelectorAll("li[data-nav-key]");
            Array.prototype.forEach.call(keyed, function (li) {
              openable(li, navEntry(nav.items, li.getAttribute("data-nav-key") || ""));
            });
          })
          .catch(function () {});
      };
      ["pointerover", "focusin", "touchstart"].forEach(function (type) {
        sidebar.addEventListener(type, askNav, { passive: true });
      });
      if (navButton) navButton.addEventListener("click", askNav);
    }

    // ---- copy buttons ------------------------------------------------------------------------
    document.addEventListener("click", function (e) {
      var target = e.target;
      var button = target && target.closest ? target.closest("button.copy-code") : null;
      if (!button) return;
      var holder = button.closest("figure, .code-block, .code, div") || button.parentElement;
      var code = holder ? holder.querySelector("pre code, pre") : null;
      if (!code) return;
      var text = button.getAttribute("data-code");
      if (text === null) text = codeText(code);
      copy(text).then(
        function () {
          flash(button, "Copied");
        },
        function () {
          flash(button, "Press Ctrl+C");
        },
      );
    });

    // ---- the site's MCP address ("Use with your AI assistant") -----------------------------
    // The button is in the page only for this script: without it, the address is plain text.
    var mcpButtons = document.querySelectorAll("button.copy-mcp-url");
    for (var b = 0; b < mcpButtons.length; b++) {
      mcpButtons[b].hidden = false;
      mcpButtons[b].addEventListener("click", function (e) {
        var button = e.currentTarget;
        var box = button.closest(".assistant-snippet");
        var status = box ? box.querySelector(".assistant-snippet-status") : null;
        var say = function (text) {
          if (status) status.textContent = text;
        };
        copy(button.getAttribute("data-copy") || "").then(
          function () {
            button.classList.add("copied");
            say("Copied the address to the clipboard.");
            setTimeout(function () {
              button.classList.remove("copied");
            }, 1600);
          },
          function () {
            say("Copying was refused: select the address and press Ctrl+C.");
          },
        );
      });
    }

    function codeText(code) {
      // Line-number gutters are decoration, not code.
      var clone = code.cloneNode(true);
      var gutters = clone.querySelectorAll(".line-numbers-rows, .line-number, [aria-hidden='true']");
      for (var i = 0; i < gutters.length; i++) gutters[i].remove();
      return clone.textContent || "";
    }

    function copy(text) {
      if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
      return new Promise(function (resolve, reject) {
        var area = document.createElement("textarea");
        area.value = text;
        area.setAttribute("readonly", "");
        area.className = "copy-buffer";
        document.body.appendChild(area);
        area.select();
        var ok = false;
        try {
          ok = document.execCommand("copy");
        } catch (e) {}
        area.remove();
        ok ? resolve() : reject(new Error("copy refused"));
      });
    }

    function flash(button, label) {
      var before = button.getAttribute("data-label") || button.textContent;
      button.setAttribute("data-label", before);
      button.textContent = label;
      button.classList.add("copied");
      setTimeout(function () {
        button.textContent = before;
        button.classList.remove("copied");
      }, 1600);
    }

    // ---- search ------------------------------------------------------------------------------
    setupSearch();

    // ---- mermaid -----------------------------------------------------------------------------
    // Mermaid is large and draws on the main thread: it is fetched when a diagram comes near the
    // screen, not while the page first renders (a page whose diagrams are further down pays
    // nothing until the reader scrolls there). Printing draws every diagram first.
    var diagrams = document.querySelectorAll(".mermaid");
    if (config.mermaid && diagrams.length) {
      var mermaidAsked = false;
      var askMermaid = function () {
        if (mermaidAsked) return;
        mermaidAsked = true;
        if (seen) seen.disconnect();
        loadMermaid(config.mermaid);
      };
      var seen = window.IntersectionObserver
        ? new IntersectionObserver(
            function (entries) {
              for (var i = 0; i < entries.length; i++) if (entries[i].isIntersecting) return askMermaid();
            },
            { rootMargin: "200px" },
          )
        : null;
      if (seen) Array.prototype.forEach.call(diagrams, function (d) { seen.observe(d); });
      else askMermaid();
      window.addEventListener("beforeprint", askMermaid);
    }

    // ---- analytics consent -------------------------------------------------------------------
    setupConsent();
  });

  /*
   * Served sites ask once whether the reader may be counted as a visitor. Not asked when the
   * browser sends an opt-out signal (it overrules any answer on the server too), nor when the
   * consent cookie already holds an answer (yes or no; the server sets it, readable here).
   */
  function setupConsent() {
    var box = document.querySelector(".consent-prompt");
    if (!box || !config.consent || !window.fetch) return;
    var nav = window.navigator || {};
    if (nav.globalPrivacyControl === true || nav.doNotTrack === "1" || nav.doNotTrack === "yes" || window.doNotTrack === "1") return;
    if (/(?:^|;\s*)quire_analytics_consent=(?:granted|denied)(?:;|$)/.test(document.cookie || "")) return;
    var buttons = box.querySelectorAll("button[data-consent]");
    function answer(granted) {
      for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
      // Hidden whatever the outcome: a failed answer is asked again on a later page, not now.
      var done = function () {
        box.hidden = true;
        document.body.classList.remove("consent-asking");
      };
      fetch(config.consent.url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ workspace: config.consent.workspace, granted: granted }),
      }).then(done, done);
    }
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener("click", function (e) {
        answer(e.currentTarget.getAttribute("data-consent") === "granted");
      });
    }
    box.hidden = false;
    document.body.classList.add("consent-asking");
  }

  function setupSearch() {
    var opener = document.querySelector(".search-open");
    var kbd = opener && opener.querySelector("kbd");
    if (kbd && /Mac|iPhone|iPad/.test(navigator.platform || "")) kbd.textContent = "⌘K";
    var dialog = null;
    var input = null;
    var list = null;
    var status = null;
    var seq = 0;
    var active = -1;

    function build() {
      dialog = document.createElement("dialog");
      dialog.className = "search-dialog";
      dialog.setAttribute("aria-label", "Search the site");
      dialog.innerHTML =
        '<form method="dialog" class="search-form" role="search">' +
        '<input type="search" name="q" autocomplete="off" spellcheck="false" placeholder="Search the docs" aria-label="Search the docs">' +
        '<button type="button" class="search-close" aria-label="Close">Esc</button>' +
        "</form>" +
        '<p class="search-status" role="status" aria-live="polite"></p>' +
        '<ul class="search-results" role="listbox"></ul>';
      document.body.appendChild(dialog);
      input = dialog.querySelector("input");
      list = dialog.querySelector(".search-results");
      status = dialog.querySelector(".search-status");
      var timer = 0;
      input.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(run, 120);
      });
      input.addEventListener("keydown", function (e) {
        var items = list.querySelectorAll("a");
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          if (items.length === 0) return;
          active = (active + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
          for (var i = 0; i < items.length; i++) items[i].classList.toggle("active", i === active);
          items[active].scrollIntoView({ block: "nearest" });
        } else if (e.key === "Enter") {
          e.preventDefault();
          var pick = items[active >= 0 ? active : 0];
          if (pick) location.href = pick.href;
        }
      });
      dialog.querySelector(".search-close").addEventListener("click", function () {
        dialog.close();
      });
      dialog.addEventListener("click", function (e) {
        if (e.target === dialog) dialog.close();
      });
    }

    function open() {
      if (!dialog) build();
      if (!dialog.open) dialog.showModal();
      input.focus();
      input.select();
    }

    function search(q) {
      if (typeof window.quireSearch === "function") return Promise.resolve(window.quireSearch(q, 10));
      if (!config.search) return Promise.resolve([]);
      var url = config.search + (config.search.indexOf("?") === -1 ? "?" : "&") + "q=" + encodeURIComponent(q) + "&limit=10";
      return fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } }).then(function (r) {
        if (!r.ok) throw new Error("search failed (" + r.status + ")");
        return r.json().then(function (body) {
          return body.items || [];
        });
      });
    }

    function run() {
      var q = input.value.trim();
      var mine = ++seq;
      active = -1;
      if (q === "") {
        list.textContent = "";
        status.textContent = "";
        return;
      }
      status.textContent = "Searching…";
      search(q).then(
        function (items) {
          if (mine !== seq) return;
          list.textContent = "";
          status.textContent = items.length === 0 ? "No pages match “" + q + "”." : items.length + (items.length === 1 ? " page" : " pages");
          items.forEach(function (item) {
            var li = document.createElement("li");
            var a = document.createElement("a");
            a.href = item.url;
            var t = document.createElement("span");
            t.className = "search-title";
            t.textContent = item.title;
            a.appendChild(t);
            if (item.snippet) {
              var s = document.createElement("span");
              s.className = "search-snippet";
              // Snippets arrive escaped, with <mark> around matches; nothing else is kept.
              appendSnippet(s, item.snippet);
              a.appendChild(s);
            }
            li.appendChild(a);
            list.appendChild(li);
          });
        },
        function () {
          if (mine !== seq) return;
          status.textContent = "Search is unavailable right now.";
        },
      );
    }

    if (opener) opener.addEventListener("click", open);
    document.addEventListener("keydown", function (e) {
      var typing = e.target && (e.target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName));
      if ((e.key === "k" || e.key === "K") && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        open();
      } else if (e.key === "/" && !typing) {
        e.preventDefault();
        open();
      }
    });
  }

  function appendSnippet(target, snippet) {
    var parts = String(snippet).split(/(<mark>|<\/mark>)/);
    var marking = false;
    var decoder = document.createElement("textarea");
    for (var i = 0; i < parts.length; i++) {
      if (parts[i] === "<mark>") marking = true;
      else if (parts[i] === "</mark>") marking = false;
      else if (parts[i]) {
        decoder.innerHTML = parts[i];
        var text = document.createTextNode(decoder.value);
        if (marking) {
          var m = document.createElement("mark");
          m.appendChild(text);
          target.appendChild(m);
        } else target.appendChild(text);
      }
    }
  }

  /**
   * Mermaid draws with <style> elements it creates while measuring a diagram. The page's CSP
   * admits style elements only with this response's nonce, so style elements created by script
   * get it. (Only the page's own, nonce-carrying scripts run at all, so this admits nothing an
   * injected script could use.)
   */
  function nonceStyleElements() {
    if (!nonce) return;
    // Strings and TrustedHTML alike (the sanitizer hands over TrustedHTML where the browser has it);
    // a serialized style element carries an emptied nonce (browsers hide it), which is replaced.
    function withNonce(markup) {
      if (markup === null || markup === undefined) return markup;
      var text = String(markup);
      if (text.indexOf("<style") === -1) return markup;
      return text.replace(/<style(\s+nonce="[^"]*")?(?=[\s>\/])/gi, '<style nonce="' + nonce + '"');
    }
    var createElement = document.createElement;
    var createElementNS = document.createElementNS;
    document.createElement = function (name) {
      var el = createElement.apply(document, arguments);
      if (String(name).toLowerCase() === "style") el.setAttribute("nonce", nonce);
      return el;
    };
    document.createElementNS = function (ns, name) {
      var el = createElementNS.apply(document, arguments);
      if (String(name).toLowerCase() === "style") el.setAttribute("nonce", nonce);
      return el;
    };
    // Markup parsed from a string (Mermaid's sanitizer parses the SVG it drew before cleaning it).
    var parse = window.DOMParser && DOMParser.prototype.parseFromString;
    if (parse) {
      DOMParser.prototype.parseFromString = function (text, type) {
        return parse.call(this, withNonce(text), type);
      };
    }
    // Markup set as a string (Mermaid writes its sanitized SVG that way).
    var inner = Object.getOwnPropertyDescriptor(Element.prototype, "innerHTML");
    if (inner && inner.set && inner.get) {
      Object.defineProperty(Element.prototype, "innerHTML", {
        configurable: true,
        enumerable: inner.enumerable,
        get: inner.get,
        set: function (value) {
          inner.set.call(this, withNonce(value));
        },
      });
    }
  }

  /** The navigation file's entry at a key ("3.1": the second entry of the fourth). */
  function navEntry(items, key) {
    var entry = null;
    var list = items;
    var parts = key.split(".");
    for (var i = 0; i < parts.length; i++) {
      entry = list && list[Number(parts[i])];
      if (!entry) return null;
      list = entry.c;
    }
    return entry;
  }

  /**
   * Turns a collapsed entry (its one link) into a section whose entries are built when it is first
   * opened, as the layout writes sections: a link stays beside the toggle, never inside it.
   */
  function openable(li, entry) {
    li.removeAttribute("data-nav-key");
    var label = li.firstElementChild;
    // A page cached before a publish may name an older file's places: fill only what still matches.
    if (!entry || !entry.c || !label || entry.t !== label.textContent) return;
    var details = document.createElement("details");
    var summary = document.createElement("summary");
    if (label.tagName === "A") {
      li.classList.add("nav-branch");
      var text = document.createElement("span");
      text.className = "nav-toggle-text";
      text.textContent = "Pages under " + entry.t;
      summary.appendChild(text);
    } else summary.appendChild(label);
    details.appendChild(summary);
    var filled = false;
    details.addEventListener("toggle", function () {
      if (!details.open || filled) return;
      filled = true;
      details.appendChild(navList(entry.c));
    });
    li.appendChild(details);
  }

  function navList(items) {
    var ul = document.createElement("ul");
    items.forEach(function (e) {
      var li = document.createElement("li");
      if (e.h) {
        li.className = "nav-heading";
        li.textContent = e.t;
      } else {
        var label;
        if (e.u) {
          label = document.createElement("a");
          label.className = e.x ? "nav-link nav-external" : "nav-link";
          label.href = e.u;
          if (e.x) label.rel = "noopener";
        } else {
          label = document.createElement("span");
          label.className = "nav-section";
        }
        label.textContent = e.t;
        li.appendChild(label);
        if (e.c) openable(li, e);
      }
      ul.appendChild(li);
    });
    return ul;
  }

  function loadMermaid(src) {
    nonceStyleElements();
    var s = document.createElement("script");
    s.src = src;
    if (nonce) s.nonce = nonce;
    s.onload = function () {
      renderDiagrams();
      document.addEventListener("quire:mode", renderDiagrams);
    };
    document.head.appendChild(s);
  }

  var diagramSeq = 0;
  function renderDiagrams() {
    var mermaid = window.mermaid;
    if (!mermaid) return;
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: currentMode() === "dark" ? "dark" : "default" });
    var nodes = document.querySelectorAll(".mermaid");
    Array.prototype.forEach.call(nodes, function (node) {
      if (!node.hasAttribute("data-source")) node.setAttribute("data-source", node.textContent || "");
      var source = node.getAttribute("data-source");
      var id = "quire-mermaid-" + ++diagramSeq;
      mermaid.render(id, source).then(
        function (out) {
          node.innerHTML = out.svg;
          node.classList.add("mermaid-rendered");
        },
        function (err) {
          node.classList.add("mermaid-error");
          node.setAttribute("title", "This diagram could not be drawn: " + (err && err.message ? err.message : err));
        },
      );
    });
  }
})();
