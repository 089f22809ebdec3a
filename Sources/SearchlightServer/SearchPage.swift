import Hummingbird
import Logging

/// The search page at `/`: one self-contained HTML document (no external scripts, fonts or
/// styles), with as-you-type results, highlighted matches, and an optional token for private items.
enum SearchPage {
    static var response: Response {
        var response = Response(contentType: "text/html; charset=utf-8", body: ByteBuffer(string: html))
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action 'none'"
        return response
    }

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Searchlight</title>
        <style>
          :root { --fg:#1d1d1f; --muted:#6e6e73; --line:#e5e5ea; --accent:#0a66d8; --mark:#fff3b0; --bg:#fff; }
          @media (prefers-color-scheme: dark) {
            :root { --fg:#f5f5f7; --muted:#a1a1a6; --line:#2c2c2e; --accent:#4ea1ff; --mark:#5c4b00; --bg:#1c1c1e; }
          }
          * { box-sizing: border-box; }
          body { margin:0; font:16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
          header { position:sticky; top:0; background:var(--bg); border-bottom:1px solid var(--line); padding:12px 16px; }
          .bar { max-width:760px; margin:0 auto; display:flex; gap:8px; align-items:center; flex-wrap:wrap; }
          h1 { font-size:18px; margin:0 8px 0 0; }
          #q { flex:1 1 260px; font-size:17px; padding:10px 12px; border:1px solid var(--line); border-radius:10px; background:transparent; color:inherit; }
          #q:focus { outline:2px solid var(--accent); border-color:transparent; }
          details { font-size:14px; color:var(--muted); }
          #token { width:100%; margin-top:6px; padding:6px 8px; border:1px solid var(--line); border-radius:8px; background:transparent; color:inherit; }
          main { max-width:760px; margin:0 auto; padding:8px 16px 48px; }
          #status { color:var(--muted); font-size:14px; min-height:1.5em; margin:8px 0; }
          #status button { font:inherit; color:var(--accent); background:none; border:0; padding:0; cursor:pointer; text-decoration:underline; }
          ol { list-style:none; margin:0; padding:0; }
          .result { padding:12px 4px; border-bottom:1px solid var(--line); cursor:pointer; }
          .result:hover, .result:focus { background:rgba(127,127,127,.08); outline:none; }
          .title { font-weight:600; color:var(--accent); }
          .meta { font-size:13px; color:var(--muted); margin-top:2px; }
          .badge { display:inline-block; font-size:12px; padding:0 6px; border-radius:6px; border:1px solid var(--line); margin-right:4px; }
          .badge.private { border-color:#b25; color:#b25; }
          .snippet { margin-top:4px; overflow-wrap:anywhere; }
          mark { background:var(--mark); color:inherit; padding:0 1px; border-radius:2px; }
          .keywords { margin-top:4px; font-size:13px; }
          .keywords span { display:inline-block; background:rgba(127,127,127,.12); border-radius:10px; padding:0 8px; margin:2px 4px 0 0; }
          #detail { margin-top:16px; border:1px solid var(--line); border-radius:12px; padding:12px 16px; }
          #detail[hidden] { display:none; }
          #detail h2 { font-size:18px; margin:0 0 8px; }
          #detail table { border-collapse:collapse; width:100%; font-size:14px; }
          #detail th { text-align:left; color:var(--muted); font-weight:normal; padding:3px 12px 3px 0; vertical-align:top; white-space:nowrap; }
          #detail td { padding:3px 0; overflow-wrap:anywhere; }
          #close { float:right; font:inherit; background:none; border:0; color:var(--accent); cursor:pointer; }
          #facets { font-size:13px; color:var(--muted); margin:0 0 4px; }
          #facets div { margin:2px 0; }
          #facets button { font:inherit; color:var(--accent); background:rgba(127,127,127,.08); border:1px solid var(--line); border-radius:10px; padding:0 8px; margin:2px 4px 0 0; cursor:pointer; }
        </style>
        </head>
        <body>
        <header>
          <div class="bar">
            <h1>Searchlight</h1>
            <input id="q" type="search" placeholder="Search — try: deep linking, title:&quot;tarte tatin&quot;, 深度链接" autocomplete="off" autofocus aria-label="Search">
          </div>
          <div class="bar">
            <details id="tokenbox"><summary>Token for private items</summary>
              <input id="token" type="password" placeholder="Bearer token (kept in this browser only)" autocomplete="off" aria-label="Token">
            </details>
          </div>
        </header>
        <main>
          <div id="status" role="status" aria-live="polite"></div>
          <nav id="facets" aria-label="Narrow the results"></nav>
          <ol id="results"></ol>
          <section id="detail" hidden aria-live="polite"></section>
        </main>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        const q = $("q"), token = $("token"), results = $("results"), status = $("status"), detail = $("detail");
        const facets = $("facets");
        // Counted over every match the caller may see; each value narrows the query when clicked.
        // The index's custom string and number fields are counted too, as many as a search may count.
        const counted = ["category", "brand", "condition", "country", "price", "rating"];
        const fieldsRead = fetch("/v1/fields").then(response => response.ok ? response.json() : { fields: [] })
          .then(body => {
            for (const field of body.fields || []) {
              if (counted.length < 8 && field.type !== "date") counted.push(field.name);
            }
          }).catch(() => {});
        token.value = localStorage.getItem("searchlight.token") || "";
        let timer = null, meaningTimer = null, generation = 0, shown = "";

        function headers() {
          const value = token.value.trim();
          return value ? { "Authorization": "Bearer " + value } : {};
        }
        function text(tag, className, content) {
          const node = document.createElement(tag);
          if (className) node.className = className;
          if (content !== undefined) node.textContent = content;
          return node;
        }
        function date(ms) {
          return new Date(ms).toISOString().replace("T", " ").slice(0, 16) + " UTC";
        }
        async function fetchJSON(url) {
          const response = await fetch(url, { headers: headers() });
          const body = await response.json();
          if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
          return body;
        }
        // While typing, results follow the words at once (semanticRatio=0); meaning joins after a pause.
        async function search(byWordsOnly) {
          const mine = ++generation;
          const query = q.value;
          await fieldsRead;
          history.replaceState(null, "", query ? "?q=" + encodeURIComponent(query) : location.pathname);
          try {
            const page = await fetchJSON("/v1/search?limit=20&facets=" + counted.join(",") + "&q=" + encodeURIComponent(query)
              + (byWordsOnly ? "&semanticRatio=0" : ""));
            if (mine !== generation) return;
            // The same page again (meaning changed nothing) leaves what is shown, and its buttons, alone.
            const key = JSON.stringify(page);
            if (key === shown) return;
            shown = key;
            render(page);
          } catch (error) {
            if (mine !== generation) return;
            shown = "";
            results.replaceChildren();
            status.textContent = error.message;
          }
        }
        function narrow(filter) {
          q.value = (q.value.trim() + " " + filter).trim();
          search();
        }
        function renderFacets(counts) {
          facets.replaceChildren();
          for (const name of counted) {
            const facet = counts && counts[name];
            if (!facet) continue;
            const row = text("div", "", name + ": ");
            if (facet.kind === "text") {
              for (const entry of facet.values.slice(0, 8)) {
                const button = text("button", "", entry.value + " (" + entry.count + ")");
                button.onclick = () => narrow(name + ':"' + entry.value.replace(/"/g, "") + '"');
                row.append(button);
              }
            } else {
              for (const bucket of facet.buckets || []) {
                if (bucket.count === 0) continue;
                const button = text("button", "", bucket.from + "–" + bucket.to + " (" + bucket.count + ")");
                button.onclick = () => narrow(name + ":>=" + bucket.from + " " + name + ":<" + bucket.to);
                row.append(button);
              }
            }
            if (row.childElementCount > 0) facets.append(row);
          }
        }
        function render(page) {
          results.replaceChildren();
          status.replaceChildren();
          renderFacets(page.facets);
          if (page.results.length === 0) {
            status.append(page.query ? "No results for “" + page.query + "”." : "The index is empty.");
            if (page.suggestion) {
              const button = text("button", "", page.suggestion);
              button.id = "suggestion";
              button.onclick = () => { q.value = page.suggestion; search(); };
              status.append(" Did you mean ", button, "?");
            }
            return;
          }
          status.textContent = (page.totalIsEstimate ? "about " : "") + page.total + (page.total === 1 ? " result" : " results");
          if (page.relaxed) status.append(" — no item has every word; these have the most of them");
          for (const result of page.results) {
            const item = text("li", "result");
            item.tabIndex = 0;
            item.dataset.id = result.canonicalIdentifier;
            item.append(text("div", "title", result.title || result.canonicalIdentifier));
            const meta = text("div", "meta");
            meta.append(text("span", "badge " + result.contentIndexMode, result.contentIndexMode));
            meta.append(result.canonicalIdentifier + " · " + result.domain);
            if (result.expirationDate) meta.append(" · expires " + date(result.expirationDate));
            item.append(meta);
            if (result.snippet) {
              const snippet = text("div", "snippet");
              snippet.innerHTML = result.snippet; // HTML-escaped by the server; only <mark> is markup
              item.append(snippet);
            }
            if (result.keywords.length) {
              const keywords = text("div", "keywords");
              for (const keyword of result.keywords) keywords.append(text("span", "", keyword));
              item.append(keywords);
            }
            item.onclick = () => open(result.canonicalIdentifier);
            item.onkeydown = (event) => { if (event.key === "Enter") open(result.canonicalIdentifier); };
            results.append(item);
          }
        }
        async function open(id) {
          try {
            const item = await fetchJSON("/v1/items/" + encodeURIComponent(id));
            detail.replaceChildren();
            const close = text("button", "", "Close");
            close.id = "close";
            close.onclick = () => { detail.hidden = true; };
            detail.append(close, text("h2", "", item["$og_title"] || id));
            const table = text("table");
            for (const key of Object.keys(item).sort()) {
              const row = text("tr");
              let value = item[key];
              if ((key === "$exp_date" || key === "$creation_timestamp") && typeof value === "number") value = date(value);
              else if (typeof value !== "string") value = JSON.stringify(value);
              row.append(text("th", "", key), text("td", "", value));
              table.append(row);
            }
            detail.append(table);
            detail.hidden = false;
            detail.scrollIntoView({ behavior: "smooth", block: "nearest" });
          } catch (error) {
            status.textContent = error.message;
          }
        }
        q.addEventListener("input", () => {
          detail.hidden = true;
          clearTimeout(timer);
          clearTimeout(meaningTimer);
          timer = setTimeout(() => search(true), 150);
          meaningTimer = setTimeout(() => search(false), 700);
        });
        token.addEventListener("change", () => { localStorage.setItem("searchlight.token", token.value.trim()); search(); });
        q.value = new URLSearchParams(location.search).get("q") || "";
        search();
        </script>
        </body>
        </html>
        """#
}
