import Foundation
import SearchlightTesting
import Testing

@Suite("The command line: ranges, --sort and --facet", .temporaryFolder)
struct AttributeCommandTests {
    /// A workspace with the sample shop (`corpus/products.jsonl`) indexed.
    func shop() throws -> Workspace {
        let workspace = try Workspace()
        let run = try workspace.run(["index", repositoryRoot + "/corpus/products.jsonl", "--now", corpusNow])
        #expect(run.status == 0, "\(run.stderr)")
        return workspace
    }

    @Test("--sort orders by price, dearest first, and a range keeps what it should; --format ids lists them")
    func sortedRange() throws {
        let workspace = try shop()
        let run = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--sort", "-price", "--limit", "100", "--json",
            "category:running price:50..100",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let results = try run.object()["results"] as? [[String: Any]] ?? []
        #expect(results.count > 3)
        let text = try String(contentsOfFile: repositoryRoot + "/corpus/products.jsonl", encoding: .utf8)
        var prices: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            let metadata = object["contentMetadata"] as? [String: Any] ?? [:]
            if metadata["productCategory"] as? String == "Running" {
                prices[object["canonicalIdentifier"] as? String ?? ""] = metadata["price"] as? Double
            }
        }
        let expected = prices.filter { (50...100).contains($0.value) }.sorted { $0.value > $1.value }.map(\.key)
        #expect(results.compactMap { $0["canonicalIdentifier"] as? String } == expected)

        let ids = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--sort=price", "--format", "ids", "--limit", "100",
            "category:running price:50..100",
        ])
        #expect(ids.stdout.split(separator: "\n").map(String.init) == expected.reversed())
    }

    @Test("--facet prints counts over every match after the results, and JSON carries them by name")
    func facets() throws {
        let workspace = try shop()
        let text = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--limit", "1", "--facet", "category,price", "--facet",
            "rating", "shoes",
        ])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Counts over every match"))
        #expect(text.stdout.contains("category: Running "))
        #expect(text.stdout.contains("price:    "))
        let json = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--limit", "0", "--facet", "category", "--json", "shoes",
        ])
        let facets = try #require(try json.object()["facets"] as? [String: Any])
        let values = (facets["category"] as? [String: Any])?["values"] as? [[String: Any]] ?? []
        let total = try json.object()["total"] as? Int ?? 0
        #expect(values.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == total)
    }

    @Test(
        "a bad sort key, facet or range exits 64 with a message naming it",
        arguments: [
            (["--sort", "colour"], "colour"), (["--sort", "price,relevance,rating"], "relevance can come only first"),
            (["--facet", "location"], "location"), (["price:cheap"], "'cheap' is not a number"),
            (["near:91,0,1km"], "latitude '91'"), (["mode:secret"], "public or private"),
            (["--sort", "distance"], "without a place"),
        ])
    func refusals(arguments: [String], message: String) throws {
        let workspace = try shop()
        let run = try workspace.run(["search", "--all-domains", "--now", corpusNow] + arguments + ["shoes"])
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test(
        "fields add makes a custom metadata key filterable, sortable and countable; fields lists it; fields remove clears it"
    )
    func customFields() throws {
        let workspace = try shop()
        let added = try workspace.run(["fields", "add", "warehouse", "--type", "string"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "Added the string field warehouse: 62 items carry it\n")
        let listed = try workspace.run(["fields", "--json"])
        #expect(try listed.object()["fields"] as? [[String: String]] == [["name": "warehouse", "type": "string"]])
        #expect(try workspace.run(["fields"]).stdout == "warehouse\tstring\n")

        let counted = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--limit", "0", "--facet", "warehouse", "--json", "",
        ])
        let facet = try #require((try counted.object()["facets"] as? [String: Any])?["warehouse"] as? [String: Any])
        let values = facet["values"] as? [[String: Any]] ?? []
        #expect(values.compactMap { $0["value"] as? String }.sorted() == ["AMS-1", "NYC-2", "SFO-1"])
        let ams = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--limit", "100", "--format", "ids", "warehouse:ams-1",
        ])
        #expect(ams.stdout.split(separator: "\n").count == 23)

        let number = try workspace.run(["fields", "add", "reading_minutes", "--type", "number"])
        #expect(number.status == 0, "\(number.stderr)")
        let index = try workspace.run([
            "index", repositoryRoot + "/corpus/articles.json", "--now", corpusNow, "--domain", "com.example.blog",
        ])
        #expect(index.status == 0, "\(index.stderr)")
        let longest = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--sort", "-reading_minutes", "--limit", "1", "--json",
            "reading_minutes:>=5",
        ])
        let first = (try longest.object()["results"] as? [[String: Any]] ?? []).first
        #expect(first?["canonicalIdentifier"] != nil, "\(longest.stderr)")

        let removed = try workspace.run(["fields", "remove", "warehouse", "--json"])
        #expect(try removed.object()["items"] as? Int == 62)
        // No longer a field: its name and value are read as text, and the output says so.
        let gone = try workspace.run(["search", "--all-domains", "--now", corpusNow, "warehouse:ams-1"])
        #expect(gone.status == 0 && gone.stdout.contains("Read as:"), "\(gone.stdout)")
    }

    @Test(
        "fields refuses a bad type, a taken name and an unknown field, exiting 64",
        arguments: [
            (["fields", "add", "colour", "--type", "colour"], "colour"),
            (["fields", "add", "price", "--type", "number"], "already means something"),
            (["fields", "remove", "colour"], "no field \"colour\""),
        ])
    func fieldRefusals(arguments: [String], message: String) throws {
        let workspace = try shop()
        let run = try workspace.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test(
        "languages: the sample recipes are told French and German, searched in their words, and --language names the query's"
    )
    func languages() throws {
        let workspace = try Workspace()
        let indexed = try workspace.run(["index", repositoryRoot + "/corpus", "--now", corpusNow])
        #expect(indexed.status == 0, "\(indexed.stderr)")
        func ids(_ arguments: [String]) throws -> [String] {
            let run = try workspace.run(["search", "--all-domains", "--now", corpusNow, "--format", "ids"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").map(String.init)
        }
        // `tartes` finds the Tarte Tatin recipes, stemmed as French.
        #expect(try ids(["tartes"]).contains("recette/01-classique"))
        // Counted by language.
        let counted = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--limit", "0", "--facet", "language", "--json", "",
        ])
        let facet = (try counted.object()["facets"] as? [String: Any])?["language"] as? [String: Any]
        let values = (facet?["values"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
        #expect(Set(values).isSuperset(of: ["en", "fr", "de"]))
        #expect(try ids(["language:de", "domain:de.example.kueche", "--limit", "100"]).count >= 25)
        // Read in English alone, the German plural `kuchens` is its own stem and finds nothing.
        #expect(try ids(["--language", "en", "--typos", "off", "kuchens"]).isEmpty)
        #expect(!(try ids(["--typos", "off", "kuchens"])).isEmpty)
        let bad = try workspace.run(["search", "--language", "fr!", "chevaux"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("language tag"))
        // No item has every word: the items with the most of them, and none for the German stop word
        // `mit` alone, which most recipes hold (Käsespätzle `mit würzigem Bergkäse`).
        let relaxed = try workspace.run([
            "search", "--all-domains", "--now", corpusNow, "--json", "--limit", "100", "--semantic-ratio", "0",
            "Kirschtorte mit Vanillesoße",
        ])
        let page = try relaxed.object()
        #expect(page["relaxed"] as? Bool == true)
        let found = Set((page["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String })
        let holding = ["02", "03", "08", "14"].flatMap { ["rezept/\($0)", "rezept/\($0)-vegetarisch"] }
        #expect(found.count >= 6 && found.isSubset(of: holding), "\(found.sorted())")
    }

    @Test("index --language records the index's default language: items whose text is not told are in it")
    func defaultLanguage() throws {
        let workspace = try Workspace()
        let file = try workspace.write(
            "items.json",
            #"[{"$canonical_identifier":"made-up","$og_title":"Stun kel thux","$og_description":"Trean nustshy trean stun."}]"#
        )
        let indexed = try workspace.run(["index", file, "--language", "de"])
        #expect(indexed.status == 0, "\(indexed.stderr)")
        let found = try workspace.run(["search", "--format", "ids", "language:de"])
        #expect(found.stdout == "made-up\n")
        let stats = try workspace.run(["stats", "--json"])
        #expect(try stats.object()["language"] as? String == "de")
        #expect(try workspace.run(["stats"]).stdout.contains("Default language:         de"))
        let bad = try workspace.run(["index", file, "--language", "deutsch!"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("language tag"), "\(bad.stderr)")
    }
}
