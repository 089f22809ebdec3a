import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// Items whose fields test what the index keeps once, beside their values (format 10): numbers whole
/// and not, texts with characters JSON escapes, fields given twice or not as the value keeps them.
private func shopItems() -> [SearchableItem] {
    func product(_ id: String, _ fill: (inout BranchUniversalObject) -> Void) -> SearchableItem {
        var object = object(id, title: "Kettle \(id)", mode: .public)
        fill(&object)
        return SearchableItem(object: object, domainIdentifier: "shop")
    }
    return [
        product("every") { object in
            object.creationDate = 1_762_336_608_980
            object.contentMetadata.price = 24.5
            object.contentMetadata.currency = "EUR"
            object.contentMetadata.ratingAverage = 4.7
            object.contentMetadata.productCategory = "Kitchen & \"Dining\" \\ 台所\tware"
            object.contentMetadata.productBrand = "Le Creuset"
            object.contentMetadata.condition = "NEW"
            object.contentMetadata.addressCity = "Villedieu-les-Poêles"
            object.contentMetadata.addressCountry = "FR"
            object.contentMetadata.latitude = 48.8378
            object.contentMetadata.longitude = -1.2186
        },
        product("whole") { object in
            object.contentMetadata.price = 31
            object.contentMetadata.ratingAverage = 5
            object.creationDate = 253_402_300_799_999  // the last millisecond of year 9999
        },
        product("tiny-huge") { object in
            object.contentMetadata.price = 1e-7
            object.contentMetadata.ratingAverage = 1.5e300
            object.contentMetadata.quantity = 3
        },
        // A whole number over 9e15 is written as a double, which a value would give back as an
        // integer: the data keeps it.
        product("beyond") { object in object.contentMetadata.price = 1e16 },
        product("negative") { object in object.contentMetadata.price = -3.25 },
        // The rating kept is the average; the plain rating stays in the data.
        product("both-ratings") { object in
            object.contentMetadata.ratingAverage = 4.2
            object.contentMetadata.rating = 4.2
        },
        product("plain-rating") { object in object.contentMetadata.rating = 3 },
        // A text with spaces around it is kept trimmed: the data keeps it as given.
        product("untrimmed") { object in
            object.contentMetadata.productCategory = "  Garden "
            object.contentMetadata.productBrand = "Bodum"
        },
        product("custom") { object in
            object.contentMetadata.customMetadata = [
                "variant": .object(["$price": .double(3.5), "$product_brand": .string("Other")]),
                "color": .string("red"),
            ]
            object.contentMetadata.price = 12.25
        },
    ]
}

@Suite("Stored items (format 10): what values hold is stored once, and read back as given", .temporaryFolder)
struct StoredItemTests {
    @Test("every item reads back exactly as given, through get and the whole index's items, and searches read it")
    func readBack() throws {
        let test = try TestIndex()
        let given = shopItems()
        #expect(try test.index.indexSearchableItems(given, now: now).added == given.count)
        var listed: [String: [String: JSONValue]] = [:]
        try test.index.forEachItem(domainIdentifier: nil, now: now) { listed[$0.uniqueIdentifier] = $0.dictionary }
        let found = try test.index.search(SearchQuery("kettle", domainIdentifier: "shop", limit: 50), now: now)
        #expect(Set(found.results.map(\.canonicalIdentifier)) == Set(given.map(\.uniqueIdentifier)))
        for item in given {
            let id = item.uniqueIdentifier
            let read = try #require(try test.index.item(withIdentifier: id, domainIdentifier: "shop", now: now))
            #expect(read.dictionary == item.dictionary, "\(id)")
            #expect(read.object == item.object, "\(id)")
            #expect(listed[id] == item.dictionary, "\(id)")
        }
        // What the values hold is still what filters and counts read.
        #expect(try test.index.ids("price:<0", domain: "shop") == ["negative"])
        #expect(try test.index.ids("category:garden", domain: "shop") == ["untrimmed"])
    }

    @Test("a search result shows the fields of its item read whole, whichever members the item holds")
    func resultFields() throws {
        let test = try TestIndex()
        var every = object(
            "full", title: "Kettle \"full\" 台所", description: "A kettle, with\ttabs and \\ slashes.",
            keywords: ["kettle", "台所"], mode: nil, expiration: now + 86_400_000)
        every.publiclyIndex = false
        every.canonicalUrl = "https://shop.example/kettle?id=1&x=2"
        every.imageUrl = "https://shop.example/kettle.png"
        every.contentMetadata.price = 24.5
        every.contentMetadata.customMetadata = ["variant": .object(["$og_title": .string("Other")])]
        var bare = object("bare", title: "Kettle bare", mode: nil)
        bare.publiclyIndex = true
        let given =
            shopItems() + [
                SearchableItem(object: every, domainIdentifier: "shop"),
                SearchableItem(object: bare, domainIdentifier: "shop"),
            ]
        try test.index.indexSearchableItems(given, now: now)
        let found = try test.index.search(SearchQuery("kettle", domainIdentifier: "shop", limit: 50), now: now)
        #expect(found.results.count == given.count)
        for result in found.results {
            let item = try #require(
                try test.index.item(withIdentifier: result.canonicalIdentifier, domainIdentifier: "shop", now: now))
            let object = item.object
            #expect(result.domain == item.domainIdentifier)
            #expect(result.title == object.title && result.contentDescription == object.contentDescription)
            #expect(result.keywords == object.keywords)
            #expect(result.canonicalUrl == object.canonicalUrl && result.imageUrl == object.imageUrl)
            #expect(result.contentIndexMode == item.contentIndexMode)
            #expect(result.expirationDate == object.expirationDate)
        }
        let full = try #require(found.results.first { $0.canonicalIdentifier == "full" })
        #expect(full.contentIndexMode == .private && full.keywords == ["kettle", "台所"])
        #expect(full.expirationDate == now + 86_400_000 && full.imageUrl == "https://shop.example/kettle.png")
        #expect(found.results.first { $0.canonicalIdentifier == "bare" }?.contentIndexMode == .public)
    }

    @Test("an item is unchanged only when what it left out of its data is unchanged too")
    func changes() throws {
        let test = try TestIndex()
        let given = shopItems()
        try test.index.indexSearchableItems(given, now: now)
        #expect(try test.index.indexSearchableItems(given, now: now).unchanged == given.count)

        var cheaper = given[0]
        cheaper.object.contentMetadata.price = 19.99
        var renamed = cheaper
        renamed.object.contentMetadata.productBrand = "Staub"
        for changed in [cheaper, renamed] {
            let report = try test.index.indexSearchableItems([changed], now: now)
            #expect(report.updated == 1 && report.unchanged == 0)
            let read = try test.index.item(withIdentifier: "every", domainIdentifier: "shop", now: now)
            #expect(read?.dictionary == changed.dictionary)
        }
        #expect(try test.index.ids("brand:staub price:<20", domain: "shop") == ["every"])
    }
}
