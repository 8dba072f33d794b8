/*
 * Site search of an exported Quire site, working from file:// as from any static host.
 * window.quireSearch(query, limit) → Promise<[{url, title, snippet}]>. The prebuilt index is a set of
 * scripts beside this one (_quire/search/docs.js and one shard per first character of a term),
 * loaded on demand with <script> elements, which file:// allows where fetch() does not.
 */
(function () {
  "use strict";
  var self = document.currentScript;
  var root = new URL("../", self ? self.src : location.href).href;
  var loaded = Object.create(null);
  var waiting = Object.create(null);

  window.__quireSearchLoad = function (name, data) {
    loaded[name] = data;
    var list = waiting[name] || [];
    delete waiting[name];
    list.forEach(function (done) { done(data); });
  };

  function load(name) {
    if (name in loaded) return Promise.resolve(loaded[name]);
    return new Promise(function (resolve) {
      if (waiting[name]) { waiting[name].push(resolve); return; }
      waiting[name] = [resolve];
      var s = document.createElement("script");
      s.src = root + "_quire/search/" + (name === "docs" ? "docs" : "t-" + name) + ".js";
      s.async = true;
      // A missing shard means no term starts with that character: an empty shard.
      s.onerror = function () { window.__quireSearchLoad(name, name === "docs" ? [] : {}); };
      document.head.appendChild(s);
    });
  }

  function tokenize(text) {
    var words = String(text).toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").match(/[\p{L}\p{N}]+/gu) || [];
    return words.filter(function (w) { return w.length >= 2 && w.length <= 32; });
  }

  function shardOf(term) {
    var c = term.charAt(0);
    return /[a-z0-9]/.test(c) ? c : "_";
  }

  window.quireSearch = async function (query, limit) {
    limit = Math.max(1, Math.min(100, Number(limit) || 10));
    var terms = tokenize(query).slice(0, 8);
    if (terms.length === 0) return [];
    var docs = await load("docs");
    var shards = await Promise.all(terms.map(function (t) { return load(shardOf(t)); }));
    var total = null;
    terms.forEach(function (term, i) {
      var shard = shards[i];
      var scores = new Map();
      // Every word may be the start of a longer one (search as you type); exact words weigh more.
      Object.keys(shard).forEach(function (key) {
        if (key.indexOf(term) !== 0) return;
        var weight = key === term ? 1 : 0.6;
        var list = shard[key];
        for (var j = 0; j < list.length; j += 2) {
          var doc = list[j];
          scores.set(doc, Math.max(scores.get(doc) || 0, list[j + 1] * weight));
        }
      });
      if (total === null) total = scores;
      else {
        var both = new Map();
        total.forEach(function (s, doc) { if (scores.has(doc)) both.set(doc, s + scores.get(doc)); });
        total = both;
      }
    });
    var ranked = Array.from(total || new Map()).sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; });
    return ranked.slice(0, limit).map(function (entry) {
      var d = docs[entry[0]];
      return { url: new URL(d[0], root).href, title: d[1], snippet: d[2] };
    });
  };
})();
