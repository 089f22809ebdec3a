#!/usr/bin/env python3
"""Writes a deterministic benchmark corpus of Branch Universal Objects.

    python3 Benchmarks/make_corpus.py --items 200000 --out /tmp/searchlight-bench/200k

The same seed and size always give the same bytes. Each item has a 6-word title, a 40-word
description and 5 keywords drawn from a Zipf-distributed vocabulary (s = 1.0 over 50,000
pseudo-words); 30 % are private, ~5 % are in Chinese, 20 % expire (a fifth of those within two days
of the reference time, so a prune three days later removes ~4 % of the corpus).

Every item also carries what a shop's export does (drawn from a random generator of their own, so the
text is the same with or without them, and `--no-attributes` leaves them out): a creation date (the
last three years, newer ones more likely), a price (log-normal, median 25) and its currency, an
average rating (most between 3.5 and 5), a product category (40, Zipf-distributed), brand (500,
Zipf), condition (mostly new), and a city with its country and coordinates (100 cities, Zipf).

It writes, under --out:
  items.jsonl        every item, one per line (Core Spotlight / Branch SDK dialect)
  files/NNN/*.json   the same items, one small file each (with --layout files or both)
  manifest.json      sizes, reference times and the query mix the benchmark runs

CORPUS_VERSION names what the generator writes: a benchmark regenerates a corpus of another version.
"""

import argparse
import bisect
import itertools
import json
import os
import random

CORPUS_VERSION = 3
DAY = 86_400_000
# 2026-11-20 00:00 UTC, the reference "now" for indexing.
INDEX_NOW = 1_795_132_800_000
# Three days later: the items that expire within two days are expired then.
PRUNE_NOW = INDEX_NOW + 3 * DAY
# The corpus's shapes: description words, vocabulary size, keywords per item. `long` makes the
# descriptions twice as long, the vocabulary four times as large and the keywords twice as many
# (about 1.5 times the JSON): what an index's size and indexing rate are checked on besides the
# standard shape.
SHAPES = {"standard": (40, 50_000, 5), "long": (80, 200_000, 10)}
ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
          "br", "cl", "dr", "fl", "gr", "pl", "st", "tr", "sh", "ch", "th", "qu"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y"]
CODAS = ["", "n", "r", "s", "l", "m", "nd", "st", "rk", "x"]
# Frequent Chinese characters; words are pairs of them.
HANZI = ("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可"
         "她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老"
         "从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给"
         "等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先")


def make_words(rng, vocabulary):
    """`vocabulary` distinct pronounceable pseudo-words, most frequent first (shorter words first)."""
    words, seen = [], set()
    syllables = [o + v + c for o, v, c in itertools.product(ONSETS, VOWELS, CODAS)]
    rng.shuffle(syllables)
    for count in (1, 2, 3, 4):
        for _ in range(vocabulary * 3):
            word = "".join(rng.choice(syllables) for _ in range(count))
            if word not in seen:
                seen.add(word)
                words.append(word)
            if len(words) == vocabulary:
                return words
    return words


CATEGORIES = [
    "Kitchen", "Home", "Garden", "Books", "Music", "Toys", "Sports", "Outdoors", "Electronics", "Computers",
    "Phones", "Cameras", "Audio", "Video Games", "Office", "Tools", "Automotive", "Beauty", "Health", "Grocery",
    "Pet Supplies", "Baby", "Clothing", "Shoes", "Jewelry", "Watches", "Luggage", "Furniture", "Lighting",
    "Bedding", "Bath", "Crafts", "Stationery", "Party", "Industrial", "Software", "Movies", "Art", "Collectibles",
    "Musical Instruments"]
CITIES = [  # (city, country, latitude, longitude)
    ("London", "GB", 51.51, -0.13), ("Paris", "FR", 48.86, 2.35), ("Berlin", "DE", 52.52, 13.40),
    ("Madrid", "ES", 40.42, -3.70), ("Rome", "IT", 41.90, 12.50), ("New York", "US", 40.71, -74.01),
    ("Los Angeles", "US", 34.05, -118.24), ("Chicago", "US", 41.88, -87.63), ("Toronto", "CA", 43.65, -79.38),
    ("Tokyo", "JP", 35.68, 139.69), ("Shanghai", "CN", 31.23, 121.47), ("Beijing", "CN", 39.90, 116.41),
    ("Sydney", "AU", -33.87, 151.21), ("São Paulo", "BR", -23.55, -46.63), ("Mexico City", "MX", 19.43, -99.13),
    ("Mumbai", "IN", 19.08, 72.88), ("Seoul", "KR", 37.57, 126.98), ("Amsterdam", "NL", 52.37, 4.90),
    ("Zürich", "CH", 47.38, 8.54), ("Stockholm", "SE", 59.33, 18.07)]
CITIES += [(f"Town {n}", CITIES[n % 20][1], CITIES[n % 20][2] + (n // 20) * 0.37, CITIES[n % 20][3] + (n // 20) * 0.41)
           for n in range(20, 100)]
CONDITIONS = [("NEW", 0.85), ("USED", 0.10), ("REFURBISHED", 0.05)]
CURRENCIES = [("EUR", 0.6), ("USD", 0.3), ("GBP", 0.1)]


def make_hanzi_words(rng, count=3000):
    words, seen = [], set()
    while len(words) < count:
        word = rng.choice(HANZI) + rng.choice(HANZI)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def zipf_cumulative(n, s=1.0):
    total, cumulative = 0.0, []
    for rank in range(1, n + 1):
        total += 1.0 / rank ** s
        cumulative.append(total)
    return cumulative


class Generator:
    def __init__(self, seed, shape="standard"):
        self.description_words, vocabulary, self.keyword_count = SHAPES[shape]
        self.rng = random.Random(seed)
        self.words = make_words(self.rng, vocabulary)
        self.hanzi = make_hanzi_words(self.rng)
        self.cumulative = zipf_cumulative(len(self.words))
        self.hanzi_cumulative = zipf_cumulative(len(self.hanzi))
        self.tags = self.words[50:2050]
        self.tag_cumulative = zipf_cumulative(len(self.tags))
        self.attribute_rng = random.Random(seed + 1)
        self.brands = [f"{w.capitalize()}" for w in self.words[5000:5500]]
        self.category_cumulative = zipf_cumulative(len(CATEGORIES))
        self.brand_cumulative = zipf_cumulative(len(self.brands))
        self.city_cumulative = zipf_cumulative(len(CITIES))

    def attributes(self, item):
        """A shop's fields: creation date, price, currency, rating, category, brand, condition, place."""
        rng = self.attribute_rng
        # Newer items are more likely: an exponential age with a mean of nine months, within three years.
        age = min(rng.expovariate(1 / (270 * DAY)), 3 * 365 * DAY)
        item["creationDate"] = INDEX_NOW - int(age)
        city, country, latitude, longitude = rng.choices(CITIES, cum_weights=self.city_cumulative)[0]
        item["contentMetadata"] = {
            "price": round(min(rng.lognormvariate(3.2, 1.0), 5000.0), 2),
            "currency": rng.choices([c for c, _ in CURRENCIES], weights=[w for _, w in CURRENCIES])[0],
            "ratingAverage": round(max(1.0, min(5.0, rng.gauss(4.1, 0.6))), 1),
            "productCategory": rng.choices(CATEGORIES, cum_weights=self.category_cumulative)[0],
            "productBrand": rng.choices(self.brands, cum_weights=self.brand_cumulative)[0],
            "condition": rng.choices([c for c, _ in CONDITIONS], weights=[w for _, w in CONDITIONS])[0],
            "addressCity": city,
            "addressCountry": country,
            "latitude": round(latitude + rng.uniform(-0.1, 0.1), 5),
            "longitude": round(longitude + rng.uniform(-0.1, 0.1), 5),
        }

    def draw(self, k, chinese=False):
        words, cumulative = (self.hanzi, self.hanzi_cumulative) if chinese else (self.words, self.cumulative)
        return self.rng.choices(words, cum_weights=cumulative, k=k)

    def item(self, number, attributes=True):
        rng = self.rng
        chinese = rng.random() < 0.05
        title = self.draw(6, chinese)
        description = self.draw(self.description_words, chinese)
        if chinese:
            title_text = "".join(title)
            description_text = "，".join(
                "".join(description[i:i + 5]) for i in range(0, self.description_words, 5)) + "。"
        else:
            title_text = " ".join(title).capitalize()
            description_text = " ".join(description).capitalize() + "."
        # Keywords are distinct tags from a Zipf-distributed set of 2,000.
        keywords = []
        while len(keywords) < self.keyword_count:
            tag = rng.choices(self.tags, cum_weights=self.tag_cumulative)[0]
            if tag not in keywords:
                keywords.append(tag)
        item = {
            "canonicalIdentifier": f"item/{number:07d}",
            "canonicalUrl": f"https://bench.example.com/item/{number:07d}",
            "title": title_text,
            "contentDescription": description_text,
            "keywords": keywords,
            "contentIndexMode": "private" if rng.random() < 0.30 else "public",
        }
        roll = rng.random()
        if roll < 0.04:
            item["expirationDate"] = INDEX_NOW + DAY + rng.randrange(DAY)
        elif roll < 0.20:
            item["expirationDate"] = INDEX_NOW + 5 * DAY + rng.randrange(25 * DAY)
        if attributes:
            self.attributes(item)
        return item


def query_mix(gen, items_sample):
    """The fixed query mix: every kind the benchmark times, with words of several frequencies."""
    rng = random.Random(7)
    ranks = [3, 10, 30, 100, 300, 1000, 3000, 10000]
    single = [gen.words[r] for r in ranks]
    two = [f"{gen.words[a]} {gen.words[b]}" for a, b in zip(ranks, reversed(ranks))]
    phrases, fields = [], []
    for item in items_sample:
        if any(ord(c) > 0x2000 for c in item["title"]):
            continue
        words = item["contentDescription"].rstrip(".").lower().split()
        start = rng.randrange(len(words) - 1)
        phrases.append(f"{words[start]} {words[start + 1]}")
        fields.append(rng.choice(item["title"].lower().split()))
        if len(phrases) == 8:
            break
    prefix = [gen.words[r][:3] for r in (20, 50, 200, 500, 2000, 5000, 20000, 40000)]
    # Two words, the second of 5 letters or more with one typo (never in its first letter): what
    # Searchlight finds by its typo tolerance, and the plain engines search as typed.
    typo = []
    for a, b in zip(ranks, reversed(ranks)):
        word = next(w for w in gen.words[b:] if len(w) >= 5)
        i = rng.randrange(1, len(word) - 1)
        typo.append(f"{gen.words[a]} {word[:i] + word[i + 1] + word[i] + word[i + 2:]}")
    return {"single": single, "two": two, "phrase": phrases, "prefix": prefix, "field": fields, "typo": typo}


def attribute_mix(gen):
    """Searches that filter, sort and count by the items' fields, each with its plain search beside it.

    `words` are the single-word mix's words; `counted` is the word that ~10 % of the items hold
    (46 words drawn per item from Zipf(1.0) over the vocabulary: rank 38).
    """
    return {
        "words": [gen.words[r] for r in (3, 10, 30, 100, 300, 1000, 3000, 10000)],
        "counted": gen.words[38],
        "range": "price:<30",
        "range_sort": {"filter": "price:<30 rating:>=4", "sort": "-created"},
        "sort": "-price",
        "facets": "category,price",
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--layout", choices=["jsonl", "files", "both"], default="both")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="standard")
    parser.add_argument("--no-attributes", action="store_true",
                        help="leave out the shop's fields (the same text otherwise)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    gen = Generator(args.seed, args.shape)
    sample, expired, private, chinese = [], 0, 0, 0
    jsonl = open(os.path.join(args.out, "items.jsonl"), "w", encoding="utf-8") if args.layout != "files" else None
    for number in range(1, args.items + 1):
        item = gen.item(number, attributes=not args.no_attributes)
        line = json.dumps(item, ensure_ascii=False)
        if jsonl:
            jsonl.write(line + "\n")
        if args.layout != "jsonl":
            folder = os.path.join(args.out, "files", f"{number // 1000:04d}")
            if number % 1000 == 0 or number == 1:
                os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"item-{number:07d}.json"), "w", encoding="utf-8") as f:
                f.write(line)
        expired += item.get("expirationDate", PRUNE_NOW + 1) <= PRUNE_NOW
        private += item["contentIndexMode"] == "private"
        chinese += any(ord(c) > 0x2000 for c in item["title"])
        if number % 97 == 0 and len(sample) < 50:
            sample.append(item)
    if jsonl:
        jsonl.close()
    manifest = {
        "version": CORPUS_VERSION, "items": args.items, "seed": args.seed, "layout": args.layout,
        "shape": args.shape, "attributes": not args.no_attributes,
        "index_now": INDEX_NOW, "prune_now": PRUNE_NOW,
        "expired_at_prune": expired, "private": private, "chinese": chinese,
        "queries": query_mix(gen, sample),
        "attribute_queries": attribute_mix(gen),
        "upsert_sample": sample[:20],
    }
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
    print(f"{args.items} items in {args.out}: {private} private, {chinese} Chinese, "
          f"{expired} expired at the prune time")


if __name__ == "__main__":
    main()
