#!/usr/bin/env python3
"""Writes Searchlight's sample corpus: realistic Branch Universal Objects in both key dialects.

Deterministic (seeded), so re-running it reproduces the committed files byte for byte:

    python3 corpus/tools/make_corpus.py

Dates are fixed epoch milliseconds around November–December 2026, so tests pass --now.
"""

import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
rng = random.Random(20261122)

DAY = 86_400_000
# 2026-11-20 00:00 UTC: the reference "today" of the corpus.
BASE = 1_795_132_800_000


def exp(days):
    return BASE + int(days * DAY)


def created(days_ago):
    return BASE - int(days_ago * DAY)


# ---------------------------------------------------------------- articles (Branch dictionary)

ARTICLE_TOPICS = [
    ("Deep linking", "deep linking", ["deep linking", "mobile"]),
    ("Deferred deep linking", "deferred deep linking", ["deep linking", "attribution"]),
    ("Universal Links", "Universal Links on iOS", ["ios", "universal links"]),
    ("Android App Links", "Android App Links", ["android", "app links"]),
    ("Spotlight indexing", "Core Spotlight indexing", ["spotlight", "ios", "search"]),
    ("App Indexing", "Firebase App Indexing", ["android", "firebase", "search"]),
    ("Link attribution", "link attribution", ["attribution", "analytics"]),
    ("QR codes", "QR codes that open apps", ["qr", "marketing"]),
    ("Email deep links", "deep links in email campaigns", ["email", "marketing", "deep linking"]),
    ("Web-to-app journeys", "web-to-app journeys", ["web", "conversion"]),
    ("Content sharing", "content sharing links", ["sharing", "growth"]),
    ("SKAdNetwork", "SKAdNetwork attribution", ["ios", "privacy", "attribution"]),
]
ARTICLE_FORMS = [
    ("{t} explained", "A plain-language guide to {d}: what it is, when to use it, and the pitfalls teams hit in their first release."),
    ("A checklist for {d}", "Twelve things to verify before shipping {d}, from entitlement files to fallback URLs and analytics events."),
    ("{t} on a budget", "How a two-person team rolled out {d} in a week, and what they would do differently next time."),
    ("Debugging {d}", "Why {d} sometimes opens the browser instead of the app, and a step-by-step way to find out which link broke."),
    ("{t}: measuring the lift", "We compared retention with and without {d} across three releases; the numbers, the method and the caveats."),
    ("{t} for product managers", "The questions to ask engineering about {d}, and the metrics that show whether it is working."),
    ("Migrating to {d}", "Moving an existing app to {d} without breaking old links: redirects, versioned paths and a rollback plan."),
    ("{t} and privacy", "What {d} can and cannot know about a user, and how to stay within App Store and Play Store rules."),
]

AUTHORS = ["Maya Chen", "Jonas Weber", "Priya Raman", "Lucas Martin", "Amara Okafor", "Sofia Rossi", "Daniel Kim"]


def articles():
    items = []
    n = 0
    for topic, phrase, keywords in ARTICLE_TOPICS:
        for title_form, description_form in rng.sample(ARTICLE_FORMS, 8):
            n += 1
            slug = f"{topic.lower().replace(' ', '-')}-{n:03d}"
            title = title_form.format(t=topic, d=phrase)
            title = title[0].upper() + title[1:]
            item = {
                "$canonical_identifier": f"article/{slug}",
                "$canonical_url": f"https://blog.example.com/articles/{slug}",
                "$og_title": title,
                "$og_description": description_form.format(t=topic, d=phrase),
                "$og_image_url": f"https://blog.example.com/images/{slug}.jpg",
                "$keywords": keywords,
                "$content_schema": "TEXT_ARTICLE",
                "$creation_timestamp": created(rng.randint(5, 400)),
                "$publicly_indexable": rng.random() < 0.75,
                "$locally_indexable": True,
                "author": rng.choice(AUTHORS),
                "reading_minutes": rng.randint(3, 14),
                "domain": "com.example.blog",
            }
            roll = rng.random()
            if roll < 0.08:
                item["$exp_date"] = exp(-rng.randint(2, 40))  # already expired
            elif roll < 0.25:
                item["$exp_date"] = exp(rng.randint(1, 10))  # expiring soon
            elif roll < 0.32:
                item["$exp_date"] = exp(rng.randint(60, 200))  # beyond 31 days: clamped
            items.append(item)
    return items


# ---------------------------------------------------------------- products (camelCase, JSON Lines)

PRODUCTS = [
    ("running shoes", "Running", ["Trailblazer", "Roadrunner", "Tempo", "Cloudstep", "Sprint"], 79, 159),
    ("walking shoes", "Footwear", ["Wanderer", "Meadow", "Harbor"], 59, 119),
    ("rain jacket", "Outerwear", ["Drizzle", "Stormline", "Nimbus"], 89, 229),
    ("backpack", "Bags", ["Daypack 22", "Commuter 18", "Summit 35", "Roll-top 28"], 49, 189),
    ("water bottle", "Accessories", ["Insulated 750 ml", "Glass 500 ml", "Trail 1 L"], 12, 39),
    ("wireless earbuds", "Audio", ["Pulse", "Echo Mini", "Aria Pro"], 39, 199),
    ("smart watch", "Wearables", ["Pace 2", "Orbit", "Tide S"], 129, 399),
    ("espresso machine", "Kitchen", ["Barista One", "Crema Duo"], 249, 899),
    ("cast-iron skillet", "Kitchen", ["10-inch", "12-inch"], 29, 79),
    ("yoga mat", "Fitness", ["Grip 4 mm", "Travel 1.5 mm", "Cork 5 mm"], 25, 95),
]
COLORS = ["red", "blue", "black", "forest green", "sand", "graphite", "coral"]
BRANDS = ["Northpeak", "Lumen & Co", "Brightwater", "Kestrel", "Alder"]


def products():
    items = []
    n = 0
    for kind, category, models, low, high in PRODUCTS:
        for model in models:
            for color in rng.sample(COLORS, 2):
                n += 1
                brand = rng.choice(BRANDS)
                sku = f"{category[:3].upper()}-{n:04d}"
                price = round(rng.uniform(low, high), 2)
                name = f"{brand} {model} {kind}"
                item = {
                    "canonicalIdentifier": f"product/{sku.lower()}",
                    "canonicalUrl": f"https://shop.example.com/p/{sku.lower()}",
                    "title": f"{name} – {color}",
                    "contentDescription": (
                        f"The {model} {kind} from {brand} in {color}. "
                        + rng.choice([
                            "Free returns within 30 days.",
                            "Ships in two business days.",
                            "Rated highly for comfort and durability.",
                            "Made with recycled materials.",
                            "Limited stock at this price.",
                        ])
                    ),
                    "imageUrl": f"https://cdn.shop.example.com/{sku.lower()}/main.jpg",
                    "keywords": [kind, category.lower(), color, brand.lower()],
                    "contentIndexMode": "public" if rng.random() < 0.7 else "private",
                    "contentMetadata": {
                        "contentSchema": "COMMERCE_PRODUCT",
                        "price": price,
                        "currency": "USD",
                        "sku": sku,
                        "productName": name,
                        "productBrand": brand,
                        "productCategory": category,
                        "productVariant": color,
                        "condition": "NEW",
                        "ratingAverage": round(rng.uniform(3.2, 4.9), 1),
                        "ratingCount": rng.randint(3, 2400),
                        "quantity": rng.randint(0, 60),
                        "customMetadata": {"warehouse": rng.choice(["SFO-1", "NYC-2", "AMS-1"])},
                    },
                    "domain": "com.example.shop",
                }
                if rng.random() < 0.2:
                    item["expirationDate"] = exp(rng.randint(1, 20))  # a sale that ends soon
                items.append(item)
    return items


# ---------------------------------------------------------------- French recipes (mixed dialects)

RECETTES = [
    ("Tarte Tatin", "Une tarte aux pommes caramélisées, renversée et servie tiède avec de la crème fraîche.", ["dessert", "pommes"]),
    ("Crème brûlée", "Une crème à la vanille sous une fine couche de sucre caramélisé au chalumeau.", ["dessert", "vanille"]),
    ("Bœuf bourguignon", "Du bœuf mijoté longuement au vin rouge de Bourgogne avec lardons, champignons et oignons grelots.", ["plat", "bœuf", "mijoté"]),
    ("Ratatouille niçoise", "Courgettes, aubergines, poivrons et tomates, cuits séparément puis réunis à l'huile d'olive.", ["plat", "légumes", "été"]),
    ("Quiche lorraine", "Une pâte brisée garnie de lardons, d'œufs et de crème, dorée au four.", ["entrée", "œufs"]),
    ("Soupe à l'oignon gratinée", "Des oignons fondus longuement, un bouillon corsé et des croûtons couverts de comté gratiné.", ["soupe", "hiver", "fromage"]),
    ("Gratin dauphinois", "Des pommes de terre en fines lamelles cuites dans la crème et le lait, parfumées à l'ail.", ["accompagnement", "pommes de terre"]),
    ("Madeleines au miel", "De petits gâteaux moelleux au miel et au beurre noisette, avec leur bosse caractéristique.", ["goûter", "miel"]),
    ("Galette des rois", "Une pâte feuilletée garnie de frangipane aux amandes, avec sa fève cachée.", ["dessert", "amandes", "fête"]),
    ("Croque-monsieur", "Pain de mie, jambon, béchamel et gruyère, doré à la poêle ou au four.", ["rapide", "fromage"]),
    ("Salade niçoise", "Thon, œufs durs, olives, haricots verts, tomates et anchois, à l'huile d'olive.", ["entrée", "été", "poisson"]),
    ("Blanquette de veau", "Du veau cuit doucement dans un bouillon, lié à la crème et au jaune d'œuf, avec riz.", ["plat", "veau"]),
    ("Crêpes Suzette", "Des crêpes nappées d'un beurre à l'orange et flambées au Grand Marnier.", ["dessert", "orange", "flambé"]),
    ("Clafoutis aux cerises", "Des cerises entières dans un appareil à flan, cuites au four et servies tièdes.", ["dessert", "cerises", "été"]),
    ("Hachis Parmentier", "Un gratin de viande hachée recouvert de purée de pommes de terre bien dorée.", ["plat", "familial"]),
    ("Mousse au chocolat", "Une mousse légère au chocolat noir et aux blancs d'œufs montés en neige.", ["dessert", "chocolat"]),
    ("Pot-au-feu", "Bœuf, os à moelle et légumes d'hiver cuits ensemble dans un bouillon parfumé.", ["plat", "hiver", "bœuf"]),
    ("Financiers à la pistache", "De petits gâteaux aux amandes et à la pistache, croustillants dehors et fondants dedans.", ["goûter", "pistache"]),
    ("Tartiflette savoyarde", "Pommes de terre, lardons, oignons et reblochon fondu, un plat de montagne.", ["plat", "fromage", "hiver"]),
    ("Île flottante", "Des blancs en neige pochés sur une crème anglaise, nappés de caramel.", ["dessert", "caramel"]),
]


def recettes():
    items = []
    for n, (title, description, keywords) in enumerate(RECETTES, 1):
        for variant in ("classique", "rapide"):
            slug = f"{n:02d}-{variant}"
            full_title = title if variant == "classique" else f"{title}, version rapide"
            text = description if variant == "classique" else description + " Prête en moins de quarante minutes."
            if n % 2:
                item = {
                    "$canonical_identifier": f"recette/{slug}",
                    "$canonical_url": f"https://cuisine.example.fr/recettes/{slug}",
                    "$og_title": full_title,
                    "$og_description": text,
                    "$keywords": keywords + (["rapide"] if variant == "rapide" else []),
                    "$content_schema": "TEXT_RECIPE",
                    "$publicly_indexable": "1" if variant == "classique" else "0",
                    "difficulté": rng.choice(["facile", "moyenne", "difficile"]),
                    "domain": "fr.example.cuisine",
                }
            else:
                item = {
                    "canonicalIdentifier": f"recette/{slug}",
                    "canonicalUrl": f"https://cuisine.example.fr/recettes/{slug}",
                    "title": full_title,
                    "contentDescription": text,
                    "keywords": keywords + (["rapide"] if variant == "rapide" else []),
                    "publiclyIndex": variant == "classique",
                    "contentMetadata": {"contentSchema": "TEXT_RECIPE", "customMetadata": {"portions": rng.randint(2, 8)}},
                    "domain": "fr.example.cuisine",
                }
            items.append(item)
    return items


# ---------------------------------------------------------------- German recipes (JSON Lines)

REZEPTE = [
    ("Käsespätzle", "Hausgemachte Spätzle mit würzigem Bergkäse und Röstzwiebeln überbacken.", ["hauptgericht", "käse"]),
    ("Apfelstrudel", "Hauchdünner Strudelteig mit Äpfeln, Rosinen und Zimt, dazu Vanillesoße.", ["dessert", "äpfel"]),
    ("Schwarzwälder Kirschtorte", "Schokoladenbiskuit, Kirschen, Kirschwasser und viel Sahne.", ["kuchen", "kirschen"]),
    ("Rinderrouladen", "Dünne Rindfleischscheiben mit Speck, Gurke und Senf gefüllt und lange geschmort.", ["hauptgericht", "rind"]),
    ("Kartoffelsuppe", "Eine sämige Suppe aus mehligen Kartoffeln, Lauch und Würstchen.", ["suppe", "kartoffeln"]),
    ("Zwiebelkuchen", "Herzhafter Hefeteig mit Zwiebeln, Speck und Schmand, dazu Federweißer.", ["herbst", "zwiebeln"]),
    ("Sauerbraten", "Rindfleisch, tagelang in Essig und Gewürzen mariniert, mit Lebkuchensoße.", ["hauptgericht", "rind", "festtag"]),
    ("Dampfnudeln", "Hefeklöße mit knuspriger Kruste, serviert mit Vanillesoße.", ["süß", "hefe"]),
    ("Königsberger Klopse", "Fleischklöße in heller Kapernsoße mit Salzkartoffeln.", ["hauptgericht", "kapern"]),
    ("Bienenstich", "Hefekuchen mit karamellisierter Mandelkruste und Puddingcreme.", ["kuchen", "mandeln"]),
    ("Flammkuchen", "Dünner Boden mit Schmand, Zwiebeln und Speck aus dem heißen Ofen.", ["schnell", "zwiebeln"]),
    ("Grünkohl mit Pinkel", "Norddeutscher Grünkohl, lange gegart, mit Pinkelwurst und Kartoffeln.", ["winter", "kohl"]),
    ("Maultaschen", "Schwäbische Teigtaschen mit Fleisch und Spinat, in Brühe oder geschmälzt.", ["hauptgericht", "schwäbisch"]),
    ("Rote Grütze", "Beeren, kurz gekocht und gebunden, mit kalter Vanillesoße.", ["dessert", "beeren", "sommer"]),
    ("Leberkäse", "Bayerischer Fleischkäse aus dem Ofen, mit süßem Senf und Brezen.", ["bayerisch", "brotzeit"]),
]


def rezepte():
    items = []
    for n, (title, description, keywords) in enumerate(REZEPTE, 1):
        for variant in ("", "vegetarisch"):
            slug = f"{n:02d}{'-' + variant if variant else ''}"
            item = {
                "$canonical_identifier": f"rezept/{slug}",
                "$canonical_url": f"https://kueche.example.de/rezepte/{slug}",
                "$og_title": title + (" (vegetarisch)" if variant else ""),
                "$og_description": description + (" Ohne Fleisch, mit Räuchertofu." if variant else ""),
                "$keywords": keywords + ([variant] if variant else []),
                "$content_schema": "TEXT_RECIPE",
                "$publicly_indexable": "YES" if n % 3 else "NO",
                "$exp_date": str(exp(rng.randint(3, 25))) if n % 5 == 0 else "0",
                "domain": "de.example.kueche",
            }
            items.append(item)
    return items


# ---------------------------------------------------------------- Chinese docs

ZH_DOCS = [
    ("深度链接入门", "深度链接可以把用户直接带到应用内的具体页面，而不是应用首页。本文介绍深度链接的基本概念。", ["深度链接", "移动开发"]),
    ("延迟深度链接的工作原理", "用户安装应用之前点击的链接，在首次打开应用时仍能跳转到对应内容，这就是延迟深度链接。", ["深度链接", "归因"]),
    ("iOS 通用链接配置指南", "通用链接需要在网站上放置关联文件，并在应用中开启关联域名功能。", ["iOS", "通用链接"]),
    ("安卓应用链接验证", "安卓应用链接通过数字资产链接文件验证域名所有权，验证失败时会打开浏览器。", ["安卓", "应用链接"]),
    ("Spotlight 搜索索引", "使用 Core Spotlight 可以把应用内容加入系统搜索，用户在搜索中点击结果即可打开应用。", ["搜索", "iOS"]),
    ("二维码与深度链接", "二维码中嵌入深度链接，扫描后可直接进入应用内的活动页面。", ["二维码", "营销"]),
    ("链接归因与隐私", "在保护用户隐私的前提下衡量链接效果，需要遵守应用商店的相关规定。", ["隐私", "归因"]),
    ("内容分享的增长效应", "让用户分享应用内容时生成深度链接，可以显著提升新用户的转化率。", ["分享", "增长"]),
    ("电子邮件中的深度链接", "营销邮件中的链接如果能直接打开应用，点击后的转化率通常更高。", ["邮件", "营销"]),
    ("网页到应用的用户旅程", "从移动网页引导用户进入应用时，应保留用户正在浏览的内容和上下文。", ["网页", "转化"]),
    ("调试失效的链接", "当链接打开了浏览器而不是应用时，可以按步骤检查配置文件、证书和重定向。", ["调试", "深度链接"]),
    ("应用内搜索的排序", "搜索结果的排序应综合考虑标题、关键词和描述中的匹配程度。", ["搜索", "排序"]),
    ("本地索引与过期内容", "本地搜索索引中的内容可以设置过期时间，过期后自动从搜索结果中移除。", ["搜索", "过期"]),
    ("私有内容与公开内容", "私有内容只对本应用可见，公开内容则可以被其他应用发现。", ["隐私", "搜索"]),
    ("跨平台链接策略", "同一个链接在 iOS、安卓和桌面端应分别跳转到最合适的目的地。", ["跨平台", "深度链接"]),
]


def zh_docs():
    items = []
    for n, (title, description, keywords) in enumerate(ZH_DOCS, 1):
        for part in (1, 2):
            item = {
                "canonicalIdentifier": f"zh/doc-{n:02d}-{part}",
                "canonicalUrl": f"https://docs.example.cn/zh/{n:02d}/{part}",
                "title": title + ("" if part == 1 else "（进阶）"),
                "contentDescription": description + ("" if part == 1 else "本篇进一步讨论常见问题与最佳实践。"),
                "keywords": keywords,
                "contentIndexMode": "ContentIndexModePublic" if n % 4 else "ContentIndexModePrivate",
                "contentMetadata": {"contentSchema": "TEXT_TECHNICAL_DOC"},
                "domain": "cn.example.docs",
            }
            if n == 13 and part == 2:
                item["expirationDate"] = exp(-3)
            items.append(item)
    return items


# ---------------------------------------------------------------- videos (NDJSON)

VIDEO_SUBJECTS = [
    "Setting up Universal Links in ten minutes", "Deep linking from push notifications", "Why your App Links fail verification",
    "Building a referral program with links", "Designing a link-first onboarding", "Measuring deep link conversion",
    "Spotlight search for your app content", "Testing deferred deep links on a simulator", "Link routing in SwiftUI",
    "Link routing in Jetpack Compose", "QR codes at events: a field report", "Email links that open the app",
    "Fallback pages that convert", "A tour of the Branch dashboard", "Content sharing that grows your app",
]


def videos():
    items = []
    for n, title in enumerate(VIDEO_SUBJECTS, 1):
        for season in (1, 2):
            item = {
                "$canonical_identifier": f"video/s{season}e{n:02d}",
                "$canonical_url": f"https://video.example.com/watch/s{season}e{n:02d}",
                "$og_title": f"{title} (season {season})",
                "$og_description": rng.choice([
                    "A short screencast with the code on screen and links to the sample project.",
                    "Recorded live with questions from the audience at the end.",
                    "Step by step, with the mistakes left in so you can see how to fix them.",
                    "A conversation with the engineers who built it, and what they learned.",
                ]),
                "$og_image_url": f"https://video.example.com/thumbs/s{season}e{n:02d}.jpg",
                "$keywords": ["video", "tutorial"] + (["deep linking"] if "link" in title.lower() else []),
                "$content_schema": "MEDIA_VIDEO",
                "$publicly_indexable": True,
                "duration_seconds": rng.randint(180, 2400),
                "domain": "com.example.video",
            }
            if season == 2 and n % 3 == 0:
                item["$exp_date"] = exp(rng.randint(2, 14))
            items.append(item)
    return items


# ---------------------------------------------------------------- places

PLACES = [
    ("Café de Flore", "Paris", "FR", 48.8540, 2.3325, "Historic café on the Boulevard Saint-Germain, famous for its writers."),
    ("Musée d'Orsay", "Paris", "FR", 48.8600, 2.3266, "Impressionist paintings in a former railway station on the Seine."),
    ("Brandenburger Tor", "Berlin", "DE", 52.5163, 13.3777, "The neoclassical gate at the end of Unter den Linden."),
    ("Englischer Garten", "München", "DE", 48.1642, 11.6056, "One of the largest urban parks in the world, with surfers on the Eisbach."),
    ("Golden Gate Park", "San Francisco", "US", 37.7694, -122.4862, "Gardens, museums and bison in a park larger than Central Park."),
    ("Ferry Building Marketplace", "San Francisco", "US", 37.7955, -122.3937, "Local food stalls and a Saturday farmers market by the bay."),
    ("外滩", "上海", "CN", 31.2400, 121.4900, "黄浦江畔的历史建筑群，夜景尤其著名。"),
    ("故宫博物院", "北京", "CN", 39.9163, 116.3972, "明清两代的皇家宫殿，如今是世界上最大的古代宫殿建筑群之一。"),
    ("Park Güell", "Barcelona", "ES", 41.4145, 2.1527, "Gaudí's mosaic terraces with views over the city."),
    ("Nyhavn", "København", "DK", 55.6798, 12.5910, "Colourful harbour houses, wooden ships and canal-side cafés."),
    ("Zürichsee Promenade", "Zürich", "CH", 47.3600, 8.5410, "A lakeside walk from Bellevue to the Chinagarten."),
    ("Café Central", "Wien", "AT", 48.2104, 16.3654, "Vaulted ceilings, Sachertorte and a long list of famous regulars."),
    ("Shibuya Crossing", "東京", "JP", 35.6595, 139.7005, "The busiest pedestrian crossing in the world, best seen from above."),
    ("Stanley Park Seawall", "Vancouver", "CA", 49.3043, -123.1443, "A ten-kilometre path around the park between forest and sea."),
    ("Marché Jean-Talon", "Montréal", "CA", 45.5363, -73.6145, "A year-round open-air market with Québec produce and cheeses."),
]


def places():
    items = []
    for n, (name, city, country, lat, lon, description) in enumerate(PLACES, 1):
        for kind in ("guide", "event"):
            item = {
                "$canonical_identifier": f"place/{n:02d}-{kind}",
                "$canonical_url": f"https://travel.example.com/{kind}s/{n:02d}",
                "$og_title": name if kind == "guide" else f"This weekend at {name}",
                "$og_description": description if kind == "guide" else f"Events and opening hours this weekend in {city}. {description}",
                "$keywords": [city, "travel"] + (["events"] if kind == "event" else ["guide"]),
                "$content_schema": "TRAVEL_ATTRACTION",
                "$address_city": city,
                "$address_country": country,
                "$latitude": lat,
                "$longitude": lon,
                "$publicly_indexable": kind == "guide",
                "domain": "com.example.travel",
            }
            if kind == "event":
                item["$exp_date"] = exp(rng.choice([-1, 2, 4, 9]))
            items.append(item)
    return items


def write_json(name, value):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as handle:
        json.dump(value, handle, ensure_ascii=False, indent=2)
        handle.write("\n")


def write_lines(name, values):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as handle:
        for value in values:
            handle.write(json.dumps(value, ensure_ascii=False) + "\n")


def main():
    write_json("articles.json", articles())
    write_lines("products.jsonl", products())
    write_json("recettes/recettes-fr.json", recettes())
    write_lines("rezepte/rezepte-de.jsonl", rezepte())
    write_json("zh/docs-zh.json", zh_docs())
    write_lines("videos.ndjson", videos())
    write_json("places.json", places())
    write_json("welcome.json", {
        "$canonical_identifier": "welcome",
        "$og_title": "Welcome to Searchlight",
        "$og_description": "A local, Spotlight-style index for Branch Universal Objects: search, expire and remove content from the command line or over HTTP.",
        "$keywords": ["searchlight", "getting started"],
        "$publicly_indexable": True,
    })


if __name__ == "__main__":
    os.makedirs(os.path.join(OUT, "recettes"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "rezepte"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "zh"), exist_ok=True)
    main()
