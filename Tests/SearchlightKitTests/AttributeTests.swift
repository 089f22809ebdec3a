import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// A shop's export, as the SDK writes it: prices, ratings, categories, brands, conditions,
/// currencies, addresses, places and creation dates, some of them missing.
func shop() throws -> TestIndex {
    let test = try TestIndex()
    func product(
        _ id: String, _ title: String, price: Double? = nil, rating: Double? = nil, category: String? = nil,
        brand: String? = nil, condition: String? = nil, currency: String? = "EUR", city: String? = nil,
        country: String? = nil, place: (Double, Double)? = nil, created: Int64? = nil,
        mode: ContentIndexMode = .public, domain: String = "default", expiration: Int64? = nil
    ) -> SearchableItem {
        var object = object(id, title: title, mode: mode, expiration: expiration)
        object.creationDate = created
        object.contentMetadata.price = price
        object.contentMetadata.ratingAverage = rating
        object.contentMetadata.productCategory = category
        object.contentMetadata.productBrand = brand
        object.contentMetadata.condition = condition
        object.contentMetadata.currency = currency
        object.contentMetadata.addressCity = city
        object.contentMetadata.addressCountry = country
        object.contentMetadata.latitude = place?.0
        object.contentMetadata.longitude = place?.1
        return SearchableItem(object: object, domainIdentifier: domain)
    }
    try test.index.indexSearchableItems(
        [
            product(
                "kettle/steel", "Steel kettle", price: 24.5, rating: 4.5, category: "Kitchen", brand: "Le Creuset",
                condition: "NEW", city: "Paris", country: "FR", place: (48.8566, 2.3522), created: now - 2 * day),
            product(
                "kettle/glass", "Glass kettle", price: 31, rating: 3.9, category: "kitchen", brand: "Bodum",
                condition: "used", city: "London", country: "GB", place: (51.5074, -0.1278),
                created: now - 40 * day),
            product(
                "kettle/copper", "Copper kettle", price: 120, rating: 4.8, category: "Kitchen", brand: "Mauviel",
                condition: "new", currency: "USD", city: "Villedieu-les-Poêles", country: "FR",
                place: (48.8378, -1.2186), created: 1_735_689_600_000),  // 2025-01-01
            product("kettle/plain", "Plain kettle"),
            product(
                "kettle/hidden", "Hidden kettle", price: 5, rating: 5, category: "Secret", mode: .private,
                domain: "com.other"),
            product(
                "kettle/old", "Old kettle", price: 10, rating: 1, category: "Attic",
                expiration: now + 1000),
            product("mug/blue", "Blue mug", price: 8, rating: 4, category: "Tableware", created: now - day),
        ], now: now)
    return test
}

@Suite("Ranges, attribute filters, sorting and counts (formats 8 and 9)", .temporaryFolder)
struct AttributeTests {
    @Test(
        "each range and filter of the query language finds what it should; an item without the field never matches",
        arguments: [
            ("kettle price:20..40", ["kettle/glass", "kettle/steel"]),
            ("price:<30", ["kettle/old", "kettle/steel", "mug/blue"]),
            ("price:<=31", ["kettle/glass", "kettle/old", "kettle/steel", "mug/blue"]),
            ("price:>31", ["kettle/copper"]),
            ("price:31", ["kettle/glass"]),
            ("price:..8", ["mug/blue"]),
            ("rating:>=4.5", ["kettle/copper", "kettle/steel"]),
            ("kettle rating:>=4 price:<30", ["kettle/steel"]),
            ("created:>=7d", ["kettle/steel", "mug/blue"]),
            ("created:7d", ["kettle/steel", "mug/blue"]),
            ("created:2025-01-01", ["kettle/copper"]),
            ("created:2025-01", ["kettle/copper"]),
            ("created:2025", ["kettle/copper", "kettle/glass", "kettle/steel", "mug/blue"]),
            ("created:..2025-01-01", ["kettle/copper"]),
            ("created:2025-01-02..2025-06-30", ["kettle/glass", "kettle/steel", "mug/blue"]),
            ("created:>2025-01-01T00:00:00Z", ["kettle/glass", "kettle/steel", "mug/blue"]),
            ("created:1735689600000", ["kettle/copper"]),
            ("expires:..+1d", ["kettle/old"]),
            ("category:kitchen", ["kettle/copper", "kettle/glass", "kettle/steel"]),
            ("category:KITCHEN -brand:bodum", ["kettle/copper", "kettle/steel"]),
            ("brand:\"le creuset\"", ["kettle/steel"]),
            ("condition:new", ["kettle/copper", "kettle/steel"]),
            ("currency:usd", ["kettle/copper"]),
            ("city:villedieu-les-poeles", ["kettle/copper"]),
            ("country:fr OR country:gb", ["kettle/copper", "kettle/glass", "kettle/steel"]),
            ("near:48.85,2.35,5km", ["kettle/steel"]),
            ("near:48.85,2.35,400km", ["kettle/copper", "kettle/glass", "kettle/steel"]),
            ("near:48.85,2.35,300km", ["kettle/copper", "kettle/steel"]),
            ("kettle -price:..100", ["kettle/copper", "kettle/plain"]),
        ])
    func filters(query: String, expected: [String]) throws {
        let test = try shop()
        #expect(try test.index.ids(query, domain: "default").sorted() == expected.sorted(), "\(query)")
        // A service's reader reads its ranges from the columns it keeps: the same items.
        let kept = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
        defer { try? kept.close() }
        #expect(try kept.ids(query, domain: "default").sorted() == expected.sorted(), "\(query), kept")
    }

    @Test(
        "a malformed range or a bad place is a query error naming the column",
        arguments: [
            ("kettle price:abc", "whose 'abc' is not a number", 8),
            ("price:30..10", "whose low end is above its high end", 1),
            ("price:..", "a range with neither end", 1),
            ("created:2026-02-30", "is not a date", 1),
            ("created:yesterday", "is not a date", 1),
            ("created:2026-01-01T25:00", "is not a date", 1),
            ("near:100,0,5km", "latitude '100'", 1),
            ("near:48.8,2.3", "needs a latitude, a longitude and a radius", 1),
            ("near:48.8,2.3,far", "radius 'far'", 1),
        ])
    func malformed(query: String, message: String, column: Int) throws {
        let test = try shop()
        let error = #expect(throws: SearchlightError.self) { try test.index.search(SearchQuery(query), now: now) }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("(column \(column))") == true, "\(error?.message ?? "")")
    }

    @Test("results sort by one key or several, items without the key last either way, relevance breaking ties")
    func sorting() throws {
        let test = try shop()
        func order(_ keys: String, _ text: String = "kettle OR mug") throws -> [String] {
            try test.index.search(
                SearchQuery(text, limit: 100, sort: SearchQuery.SortKey.list(keys)), now: now
            ).results.map(\.canonicalIdentifier)
        }
        #expect(
            try order("price") == [
                "mug/blue", "kettle/old", "kettle/steel", "kettle/glass", "kettle/copper", "kettle/plain",
            ])
        #expect(
            try order("-price")
                == ["kettle/copper", "kettle/glass", "kettle/steel", "kettle/old", "mug/blue", "kettle/plain"])
        #expect(try order("-rating").prefix(3) == ["kettle/copper", "kettle/steel", "mug/blue"])
        #expect(try order("-created").prefix(4) == ["mug/blue", "kettle/steel", "kettle/glass", "kettle/copper"])
        #expect(try order("created").prefix(4) == ["kettle/copper", "kettle/glass", "kettle/steel", "mug/blue"])
        // A tie on the first key (neither has a creation date) is broken by the next.
        #expect(try order("-created,price").suffix(2) == ["kettle/old", "kettle/plain"])
        #expect(try order("-created,-price").suffix(2) == ["kettle/old", "kettle/plain"])
        #expect(try order("relevance") == order(""))
        #expect(try order("relevance,price").count == 6)

        for bad in ["colour", "category", "price,relevance,rating"] {
            let error = #expect(throws: SearchlightError.self) { try order(bad) }
            #expect(error?.code == .invalidArgument, "\(bad)")
        }
    }

    @Test("--sort distance orders what near: finds, nearest first; without near: or beside another key, refused")
    func distance() throws {
        let test = try shop()
        func order(_ keys: String, _ text: String) throws -> [String] {
            try test.index.search(
                SearchQuery(text, limit: 100, sort: SearchQuery.SortKey.list(keys)), now: now
            ).results.map(\.canonicalIdentifier)
        }
        // From Paris: the steel kettle there, the copper one in Normandy (262 km), the glass one in London (344 km).
        #expect(try order("distance", "near:48.85,2.35,1000km") == ["kettle/steel", "kettle/copper", "kettle/glass"])
        #expect(try order("-distance", "near:48.85,2.35,1000km") == ["kettle/glass", "kettle/copper", "kettle/steel"])
        #expect(try order("relevance,distance", "kettle near:51.5,-0.12,1000km").count == 3)
        #expect(try order("distance", "kettle near:51.5,-0.12,1000km").first == "kettle/glass")
        for (keys, text) in [("distance", "kettle"), ("distance,price", "near:48.85,2.35,1000km")] {
            let error = #expect(throws: SearchlightError.self) { try order(keys, text) }
            #expect(error?.code == .invalidArgument, "\(keys) \(text)")
        }
    }

    @Test("counts cover every match the caller may see, never another domain's private item or an expired one")
    func counts() throws {
        let test = try shop()
        let page = try test.index.search(
            SearchQuery("kettle", limit: 1, facets: ["category", "price", "created", "rating"]), now: now + 2000)
        #expect(page.results.count == 1)
        #expect(page.facets.map(\.name) == ["category", "price", "created", "rating"])
        let category = try #require(page.facets.first)
        // "Kitchen" and "kitchen" count as one, written as most items write it; the private
        // "Secret" of com.other and the expired "Attic" are not counted.
        #expect(category.values.map(\.value) == ["Kitchen"])
        #expect(category.values.map(\.count) == [3])
        let price = page.facets[1]
        #expect(price.minimum == 24.5)
        #expect(price.maximum == 120)
        #expect(price.buckets.reduce(0) { $0 + $1.count } == 3)
        // Ranges 20 wide from 20: about five of them over 24.5 to 120.
        #expect(price.buckets.first?.from == 20)
        #expect(price.buckets.allSatisfy { $0.to - $0.from == 20 })
        #expect(page.facets[2].minimum == 1_735_689_600_000)
        #expect(page.facets[2].maximum == Double(now - 2 * day))

        // Seen from com.other, its private item counts.
        let other = try test.index.search(
            SearchQuery("kettle", domainIdentifier: "com.other", limit: 0, facets: ["category"]), now: now + 2000)
        #expect(other.facets.first?.values.map(\.value) == ["Kitchen", "Secret"])

        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(page)) as? [String: Any]
        let facets = try #require(json?["facets"] as? [String: [String: Any]])
        #expect(Set(facets.keys) == ["category", "price", "created", "rating"])
        #expect(facets["rating"]?["buckets"] as? [[String: Double]] != nil)
        // Round bounds: 3.8, not 3.8000000000000003.
        let bounds = (page.facets[3].buckets.map(\.from) + page.facets[3].buckets.map(\.to))
        #expect(bounds.allSatisfy { "\($0)".count <= 4 }, "\(bounds)")
        let plain = try test.index.search(SearchQuery("kettle"), now: now)
        #expect(!String(decoding: try JSONEncoder().encode(plain), as: UTF8.self).contains("facets"))

        for bad in [["location"], ["colour"], Array(repeating: "price", count: 9)] {
            let error = #expect(throws: SearchlightError.self) {
                try test.index.search(SearchQuery("kettle", facets: bad), now: now)
            }
            #expect(error?.code == .invalidArgument, "\(bad)")
        }
    }

    @Test("a reader keeping counted fields in memory counts what one reading them each time does, after every write")
    func keptColumns() throws {
        let test = try shop()
        let kept = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
        let other = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
        let plain = try SearchableIndex(path: test.path, access: .readOnly)
        defer { for index in [kept, other, plain] { try? index.close() } }
        func counts(_ index: SearchableIndex, _ domain: String) throws -> [String] {
            let query = SearchQuery(
                "kettle OR mug", domainIdentifier: domain, limit: 0, facets: ["category", "price"])
            let page = try index.search(query, now: now + 2000)
            let price = page.facets[1]
            return page.facets[0].values.map { "\($0.value)=\($0.count)" }
                + ["\(price.minimum ?? -1)...\(price.maximum ?? -1)", "\(page.total)"]
        }
        func expectSame(_ expected: [String]) throws {
            for domain in ["default", "com.other"] {
                let counted = try counts(plain, domain)
                // The first count builds the columns; the second, and another reader's, read them.
                for index in [kept, kept, other] { #expect(try counts(index, domain) == counted, "\(domain)") }
            }
            #expect(try counts(kept, "default") == expected)
        }
        // The plain kettle has no category or price; the private and the expired ones are not counted.
        try expectSame(["Kitchen=3", "Tableware=1", "8.0...120.0", "5"])

        // Each write is a new revision, counted from columns of its own.
        var garden = object("can/zinc", title: "Zinc watering can, a kettle for plants", mode: .public)
        garden.contentMetadata.productCategory = "Garden"
        garden.contentMetadata.price = 300
        try test.index.indexSearchableItems([SearchableItem(object: garden)], now: now)
        try expectSame(["Kitchen=3", "Garden=1", "Tableware=1", "8.0...300.0", "6"])
        // A range reads the new revision's column too.
        #expect(try kept.ids("price:>=120", domain: "default").sorted() == ["can/zinc", "kettle/copper"])
        _ = try test.index.deleteSearchableItems(withIdentifiers: ["kettle/copper", "mug/blue"], includePublic: true)
        try expectSame(["Kitchen=2", "Garden=1", "24.5...300.0", "4"])
    }

    @Test("a reader keeping ranks of its sort keys pages as one sorting every match does, also when few pass its bound")
    func boundedSort() throws {
        let test = try TestIndex()
        // Prices 1 to 3,000 (a few tied), five ratings, a creation date each; "cheap" only on the
        // cheapest fifth, so that a page of it by -price is not among the dearest items.
        let items = (1...3000).map { number in
            var object = object(
                "widget/\(number)", title: "Widget \(number)", description: number <= 600 ? "cheap" : nil,
                mode: .public)
            object.contentMetadata.price = Double(number - number % 7 / 6)
            object.contentMetadata.ratingAverage = Double(number % 5 + 1)
            object.creationDate = now - Int64(number) * 60_000
            return SearchableItem(object: object)
        }
        try test.index.indexSearchableItems(items, now: now)
        let kept = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
        let plain = try SearchableIndex(path: test.path, access: .readOnly)
        defer { for index in [kept, plain] { try? index.close() } }
        for text in ["widget", "cheap", "widget price:<2000"] {
            // A count (limit 0) counts every match.
            let every = try plain.search(SearchQuery(text, limit: 0), now: now)
            for sort in ["-price", "price", "-rating,price", "rating,-created", "-created", "relevance,-price"] {
                for offset in [0, 30] {
                    let query = SearchQuery(text, limit: 10, offset: offset, sort: SearchQuery.SortKey.list(sort))
                    let expected = try plain.search(query, now: now)
                    let got = try kept.search(query, now: now)
                    #expect(
                        got.results.map(\.canonicalIdentifier) == expected.results.map(\.canonicalIdentifier),
                        "\(text) --sort \(sort) at \(offset)")
                    // Past a thousand matches beyond the page the count is an estimate.
                    #expect(abs(got.total - every.total) <= every.total / 4, "\(text) --sort \(sort)")
                }
                // Counted for its facets, every match is counted: the total is exact.
                let counted = try kept.search(
                    SearchQuery(text, limit: 10, sort: SearchQuery.SortKey.list(sort), facets: ["rating"]), now: now)
                #expect(counted.total == every.total, "\(text) --sort \(sort) --facet rating")
            }
        }
    }
}
