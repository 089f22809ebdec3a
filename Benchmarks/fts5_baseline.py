#!/usr/bin/env python3
"""The SQLite FTS5 baseline, through Python's sqlite3: the same items, the same operations.

    fts5_baseline.py index DB items.jsonl NOW_MS     JSON Lines -> upserted rows, one transaction per 10,000
    fts5_baseline.py query DB manifest.json ROUNDS   the query mix; prints each kind's latencies (ms)
    fts5_baseline.py keystrokes DB manifest.json ROUNDS
                                                     the two-word and phrase queries typed one character
                                                     at a time, the last word a prefix (`word*`)
    fts5_baseline.py upsert DB manifest.json         single-item upsert and remove latencies (ms)
    fts5_baseline.py attributes DB manifest.json ROUNDS
                                                     the searches that filter, sort and count by the
                                                     items' fields (manifest's attribute_queries)
    fts5_baseline.py prune DB NOW_MS                 delete every item expired at NOW_MS

Items are stored the way Searchlight stores them: the whole object as data, with domain,
identifier, index mode and expiration as columns; title, description and keywords in an FTS5
table (porter unicode61), ranked by bm25 with the title weighted 10 and keywords 5. The fields a
search filters, sorts and counts by (creation date, price, rating, category, brand) are columns of
their own, each with a B-tree index.
Each command prints one line of JSON.
"""

import json
import sqlite3
import sys
import time

SCHEMA = """
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY,
    domain TEXT NOT NULL,
    identifier TEXT NOT NULL,
    is_public INTEGER NOT NULL,
    expiration INTEGER NOT NULL,
    data TEXT NOT NULL,
    created INTEGER,
    price REAL,
    rating REAL,
    category TEXT,
    brand TEXT,
    UNIQUE (domain, identifier)
);
CREATE INDEX IF NOT EXISTS items_expiration ON items (expiration);
CREATE INDEX IF NOT EXISTS items_created ON items (created);
CREATE INDEX IF NOT EXISTS items_price ON items (price);
CREATE INDEX IF NOT EXISTS items_rating ON items (rating);
CREATE INDEX IF NOT EXISTS items_category ON items (category);
CREATE INDEX IF NOT EXISTS items_brand ON items (brand);
CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5 (
    title, description, keywords, tokenize = 'porter unicode61'
);
"""
NEVER = 9_000_000_000_000_000
DOMAIN = "default"
QUERY = """
SELECT items.data, bm25(search, 10.0, 1.0, 5.0) AS score
FROM search JOIN items ON items.id = search.rowid
WHERE search MATCH ? AND items.expiration > ? AND (items.is_public = 1 OR items.domain = ?)
ORDER BY score LIMIT 20
"""
# The attribute searches: the query above with a condition and an order of their own.
FILTERED = """
SELECT items.data, bm25(search, 10.0, 1.0, 5.0) AS score
FROM search JOIN items ON items.id = search.rowid
WHERE search MATCH ? AND items.expiration > ? AND (items.is_public = 1 OR items.domain = ?) {condition}
ORDER BY {order} LIMIT 20
"""
# Counts over every match: one GROUP BY for a text field, min and max for a number.
GROUPED = """
SELECT items.{column}, count(*) FROM search JOIN items ON items.id = search.rowid
WHERE search MATCH ? AND items.expiration > ? AND (items.is_public = 1 OR items.domain = ?)
GROUP BY items.{column}
"""
RANGED = """
SELECT min(items.{column}), max(items.{column}), count(items.{column}) FROM search JOIN items ON items.id = search.rowid
WHERE search MATCH ? AND items.expiration > ? AND (items.is_public = 1 OR items.domain = ?)
"""


def connect(path):
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript(SCHEMA)
    return connection


def upsert(cursor, item, line, now):
    expiration = item.get("expirationDate", NEVER)
    identifier = item["canonicalIdentifier"]
    old = cursor.execute("SELECT id FROM items WHERE domain = ? AND identifier = ?", (DOMAIN, identifier)).fetchone()
    if old:
        cursor.execute("DELETE FROM search WHERE rowid = ?", old)
        cursor.execute("DELETE FROM items WHERE id = ?", old)
    if expiration <= now:
        return
    metadata = item.get("contentMetadata", {})
    cursor.execute(
        "INSERT INTO items (domain, identifier, is_public, expiration, data, created, price, rating, category, brand)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (DOMAIN, identifier, item.get("contentIndexMode") != "private", expiration, line, item.get("creationDate"),
         metadata.get("price"), metadata.get("ratingAverage"), metadata.get("productCategory"),
         metadata.get("productBrand")))
    cursor.execute(
        "INSERT INTO search (rowid, title, description, keywords) VALUES (?, ?, ?, ?)",
        (cursor.lastrowid, item.get("title", ""), item.get("contentDescription", ""),
         " ".join(item.get("keywords", []))))


def index(path, jsonl, now):
    start = time.perf_counter()
    connection = connect(path)
    cursor = connection.cursor()
    count = 0
    cursor.execute("BEGIN")
    with open(jsonl, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            upsert(cursor, json.loads(line), line, now)
            count += 1
            if count % 10_000 == 0:
                cursor.execute("COMMIT")
                cursor.execute("BEGIN")
    cursor.execute("COMMIT")
    connection.close()
    print(json.dumps({"items": count, "seconds": time.perf_counter() - start}))


def fts_query(kind, text):
    """The query mix in FTS5's syntax."""
    if kind == "phrase":
        return f'"{text}"'
    if kind == "prefix":
        return f"{text}*"
    if kind == "field":
        return f"title:{text}"
    return text


def query(path, manifest_path, rounds):
    manifest = json.load(open(manifest_path, encoding="utf-8"))
    connection = sqlite3.connect(path)
    now = manifest["index_now"]
    latencies = {}
    for kind, texts in manifest["queries"].items():
        samples = []
        # Round 0 warms the caches and is not timed, as in the other query loops.
        for round_number in range(rounds + 1):
            for text in texts:
                start = time.perf_counter()
                connection.execute(QUERY, (fts_query(kind, text), now, DOMAIN)).fetchall()
                if round_number > 0:
                    samples.append((time.perf_counter() - start) * 1000)
        latencies[kind] = samples
    print(json.dumps(latencies))


def sql_condition(filter_text):
    """A Searchlight range filter of the mix (`price:<30 rating:>=4`) as SQL."""
    conditions = []
    for part in filter_text.split():
        column, bound = part.split(":")
        operator = bound.rstrip("0123456789.")
        conditions.append(f"AND items.{column} {operator} {bound[len(operator):]}")
    return " ".join(conditions)


def sql_order(sort):
    """A Searchlight sort key (`-created`) as SQL: items without the field last."""
    column = sort.lstrip("-")
    return f"items.{column} IS NULL, items.{column} {'DESC' if sort.startswith('-') else 'ASC'}, score"


def attributes(path, manifest_path, rounds):
    manifest = json.load(open(manifest_path, encoding="utf-8"))
    mix = manifest["attribute_queries"]
    connection = sqlite3.connect(path)
    now = manifest["index_now"]
    range_sort = mix["range_sort"]
    statements = {
        "plain": QUERY,
        "range": FILTERED.format(condition=sql_condition(mix["range"]), order="score"),
        "sort": FILTERED.format(condition="", order=sql_order(mix["sort"])),
        "range_sort": FILTERED.format(condition=sql_condition(range_sort["filter"]), order=sql_order(range_sort["sort"])),
    }
    latencies = {}
    for kind, statement in statements.items():
        samples = []
        for round_number in range(rounds + 1):
            for word in mix["words"]:
                start = time.perf_counter()
                connection.execute(statement, (word, now, DOMAIN)).fetchall()
                if round_number > 0:
                    samples.append((time.perf_counter() - start) * 1000)
        latencies[kind] = samples
    # The counts: the page of the counted word, then a count per value of each text field and the
    # least and greatest of each number, over every match.
    facet_samples, plain_samples = [], []
    for round_number in range(rounds + 1):
        for counting in (False, True):
            start = time.perf_counter()
            connection.execute(QUERY, (mix["counted"], now, DOMAIN)).fetchall()
            if counting:
                for column in mix["facets"].split(","):
                    statement = (RANGED if column in ("price", "rating", "created") else GROUPED).format(column=column)
                    connection.execute(statement, (mix["counted"], now, DOMAIN)).fetchall()
            if round_number > 0:
                (facet_samples if counting else plain_samples).append((time.perf_counter() - start) * 1000)
    latencies["counted_plain"] = plain_samples
    latencies["facets"] = facet_samples
    print(json.dumps(latencies))


def typed(text):
    """A query as typed so far, in FTS5's syntax: its words, the last one a prefix."""
    words = [w.replace('"', '') for w in text.split()]
    if not words:
        return None
    quoted = [f'"{w}"' for w in words]
    if not text.endswith(" "):
        quoted[-1] += "*"
    return " ".join(quoted)


def keystrokes(path, manifest_path, rounds):
    manifest = json.load(open(manifest_path, encoding="utf-8"))
    connection = sqlite3.connect(path)
    now = manifest["index_now"]
    samples = []
    for round_number in range(rounds + 1):
        for text in manifest["queries"]["two"] + manifest["queries"]["phrase"]:
            for length in range(1, len(text) + 1):
                start = time.perf_counter()
                query = typed(text[:length])
                if query:
                    connection.execute(QUERY, (query, now, DOMAIN)).fetchall()
                if round_number > 0:
                    samples.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"keystrokes": samples}))


def upserts(path, manifest_path):
    manifest = json.load(open(manifest_path, encoding="utf-8"))
    connection = sqlite3.connect(path, isolation_level=None)
    cursor = connection.cursor()
    now = manifest["index_now"]
    upsert_ms, remove_ms = [], []
    for item in manifest["upsert_sample"]:
        item = dict(item, title=item["title"] + " revised")
        start = time.perf_counter()
        cursor.execute("BEGIN")
        upsert(cursor, item, json.dumps(item), now)
        cursor.execute("COMMIT")
        upsert_ms.append((time.perf_counter() - start) * 1000)
    for item in manifest["upsert_sample"]:
        start = time.perf_counter()
        cursor.execute("BEGIN")
        row = cursor.execute("SELECT id FROM items WHERE domain = ? AND identifier = ?",
                             (DOMAIN, item["canonicalIdentifier"])).fetchone()
        if row:
            cursor.execute("DELETE FROM search WHERE rowid = ?", row)
            cursor.execute("DELETE FROM items WHERE id = ?", row)
        cursor.execute("COMMIT")
        remove_ms.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"upsert": upsert_ms, "remove": remove_ms}))


def prune(path, now):
    start = time.perf_counter()
    connection = sqlite3.connect(path, isolation_level=None)
    cursor = connection.cursor()
    cursor.execute("BEGIN")
    expired = [row[0] for row in cursor.execute("SELECT id FROM items WHERE expiration <= ?", (now,))]
    cursor.executemany("DELETE FROM search WHERE rowid = ?", ((i,) for i in expired))
    cursor.execute("DELETE FROM items WHERE expiration <= ?", (now,))
    cursor.execute("COMMIT")
    cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(json.dumps({"items": len(expired), "seconds": time.perf_counter() - start}))


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "index" and len(argv) == 5:
        return index(argv[2], argv[3], int(argv[4]))
    if command == "query" and len(argv) == 5:
        return query(argv[2], argv[3], int(argv[4]))
    if command == "keystrokes" and len(argv) == 5:
        return keystrokes(argv[2], argv[3], int(argv[4]))
    if command == "attributes" and len(argv) == 5:
        return attributes(argv[2], argv[3], int(argv[4]))
    if command == "upsert" and len(argv) == 4:
        return upserts(argv[2], argv[3])
    if command == "prune" and len(argv) == 4:
        return prune(argv[2], int(argv[3]))
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
