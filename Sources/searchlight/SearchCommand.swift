import ArgumentParser
import Glibc
import SearchlightCommandLine
import SearchlightKit

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Search the index.",
        discussion: """
            Words are ANDed, stemmed and matched without regard to case or accents; the last word \
            also matches as a prefix. "Phrases" (straight or typographic quotes), -exclusion, \
            AND/OR/NOT and parentheses, word*, and the fields title:, keyword:, description:, id:, \
            schema:, mode: and domain: work as the README's section "The query language" \
            describes. An empty query lists every visible item.

            A search sees the private items of --domain and every domain's public items; \
            --all-domains sees everything.

            Examples:
              searchlight search deep linking
              searchlight search 'title:"tarte tatin" OR keyword:dessert' --all-domains
              searchlight search 'android -firebase' --domain com.example.blog --scope private --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?

    @Argument(
        help: ArgumentHelp(
            "The query; several words are joined with spaces. Put -- before words that start with a dash "
                + "(searchlight search -- android -firebase).", valueName: "query"))
    var query: [String] = []

    @OptionGroup var visibility: SearchVisibility

    @Option(parsing: .unconditional, help: "How many results to show (at most \(SearchQuery.maximumLimit)).")
    var limit = 20

    @Option(parsing: .unconditional, help: "How many results to skip (at most \(SearchQuery.maximumOffset)).")
    var offset = 0

    @Option(
        name: .customLong("sort"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Order the results by relevance, created, expires, views, price, rating or a number or date field of "
                + "the index's (searchlight fields); a leading - for descending (-created: newest first). Repeat it "
                + "or separate keys with commas; relevance breaks ties. distance: nearest to the query's near: first.",
            valueName: "key"))
    var sortKeys: [String] = []

    @Option(
        name: .customLong("facet"),
        help: ArgumentHelp(
            "Count over every match: per value of category, brand, condition, currency, city, country or language; the "
                + "least, greatest and ranges of price, rating or views; the earliest and latest created or expires; "
                + "and the index's own fields (searchlight fields) likewise.",
            valueName: "attribute"))
    var facets: [String] = []

    @Option(
        name: .customLong("semantic-ratio"), parsing: .unconditional,
        help: ArgumentHelp(
            "How much meaning weighs against words, from 0 (words only) to 1 (meaning only); default "
                + "\(SearchQuery.defaultSemanticRatio) when the index has vectors of meaning and the model is installed.",
            valueName: "ratio"))
    var semanticRatio: Double?

    @Option(
        help: ArgumentHelp(
            "on: a plain word of 5 letters or more also finds the words one typo from it (two from 9 letters), the "
                + "first letter kept, a match as typed ranking first; off: exact words only.",
            valueName: "on|off"))
    var typos = Typos.on

    @Option(
        name: .customLong("language"),
        help: ArgumentHelp(
            "Read the query in this language (a tag such as fr or pt-BR; repeatable, or separated by commas) rather "
                + "than in the languages of the items you may see.",
            valueName: "tag"))
    var languages: [String] = []

    enum Typos: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @Option(
        help: ArgumentHelp(
            "Text output: the results as text, or their identifiers, one a line (ids), for scripts: the items the "
                + "words select, none found by meaning alone unless --semantic-ratio is given."))
    var format = Format.text

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, ids
    }

    @Flag(
        name: .shortAndLong,
        help: ArgumentHelp(
            "A full-screen view whose results follow each keystroke: up/down (Ctrl-P/Ctrl-N) select, Enter prints "
                + "the selection, Escape or Ctrl-C leaves (status 130)."))
    var interactive = false

    @Option(
        name: .customLong("print"),
        help: ArgumentHelp("With --interactive: what Enter prints of the selected item.", valueName: "id|url|json"))
    var printing: InteractiveSearch.Printed = .id

    /// Keywords a text result shows before saying how many more there are.
    static let keywordsShown = 8

    func validate() throws {
        if format == .ids, global.json { throw ValidationError("Use either --json or --format ids, not both") }
        if limit < 0 || limit > SearchQuery.maximumLimit {
            throw ValidationError("--limit must be between 0 and \(SearchQuery.maximumLimit)")
        }
        if offset < 0 || offset > SearchQuery.maximumOffset {
            throw ValidationError("--offset must be between 0 and \(SearchQuery.maximumOffset)")
        }
        if let semanticRatio, !(0...1).contains(semanticRatio) {
            throw ValidationError("--semantic-ratio must be between 0 (words only) and 1 (meaning only)")
        }
    }

    func run() throws {
        try reportingErrors(global) {
            let search = SearchQuery(
                query.joined(separator: " "),
                domainIdentifier: visibility.domainIdentifier, scope: visibility.scope.scope, limit: limit,
                offset: offset,
                sort: sortKeys.flatMap { SearchQuery.SortKey.list($0) },
                facets: facets.flatMap { SearchQuery.facetNames($0) },
                // A script's list is what the words select (SPEC §2.4): meaning only when named.
                semanticRatio: semanticRatio ?? (format == .ids && !global.json ? 0 : nil), typos: typos == .on,
                languages: languages.flatMap { $0.split(separator: ",").map(String.init) })
            let index = try SearchableIndex.openForReading(global)
            if interactive { return try runInteractive(search, in: index) }
            let results = try index.search(search, now: commandTime(now))
            try index.close()
            if global.json { return try global.output.printJSON(results) }
            if format == .ids {
                for result in results.results { print(Output.shown(result.canonicalIdentifier)) }
                return
            }
            Self.printText(results)
        }
    }

    private func runInteractive(_ search: SearchQuery, in index: SearchableIndex) throws {
        var template = search
        template.limit = max(1, min(search.limit, 50))
        // No colour with --color never, NO_COLOR (no-color.org) or on a terminal that cannot show it.
        let color =
            global.color == .always
            || (global.color == .auto && getenv("NO_COLOR") == nil && !Output.terminalIsDumb)
        let view = try InteractiveSearch(
            index: index, template: template, now: commandTime(now), printed: printing, color: color)
        let (status, output) = view.run()
        try index.close()
        if let output { print(output) }
        if status != 0 { throw ExitCode(status) }
    }

    /// Prints a page of results as text; each result's score when `scores` (by default for a
    /// query with text).
    static func printText(_ page: SearchResults, scores: Bool? = nil) {
        defer { printFacets(page.facets) }
        if let readAs = page.readAs { print("Read as: \(Output.bold(readAs))") }
        guard !page.results.isEmpty else {
            let scopeText = page.total > 0 ? "No more results (\(page.total) in all)" : "No results"
            print(page.query.isEmpty ? "\(scopeText)." : "\(scopeText) for \(page.query.quotedForDisplay).")
            if let suggestion = page.suggestion { print("Did you mean: \(Output.bold(suggestion))?") }
            return
        }
        let first = page.offset + 1
        let last = page.offset + page.results.count
        let matching =
            page.total == 1 ? "1 result" : "\(page.totalIsEstimate ? "About " : "")\(page.total) results"
        let subject = page.query.isEmpty ? "" : " for \(page.query.quotedForDisplay)"
        print("\(matching)\(subject), showing \(first)–\(last)")
        if page.relaxed { print("No item has every word; these have the most of them.") }
        // A suggestion comes with results when the words matched nothing and meaning found these.
        if let suggestion = page.suggestion { print("Did you mean: \(Output.bold(suggestion))?") }
        print()
        let width = String(last).count
        for (position, result) in page.results.enumerated() {
            let number = String(first + position).leftPadded(to: width)
            let title = result.title.flatMap { $0.isEmpty ? nil : $0 } ?? result.canonicalIdentifier
            print("\(number). \(Output.bold(title))")
            let indent = String(repeating: " ", count: width + 2)
            var facts = [result.canonicalIdentifier, result.domain, result.contentIndexMode.rawValue]
            if let expiration = result.expirationDate { facts.append("expires \(Output.date(expiration))") }
            if scores ?? !page.query.isEmpty { facts.append("\(result.score)%") }
            // An item its words do not match was found by meaning (docs/reference.md, *Meaning*).
            if !result.matchedBy.contains(.words), scores == nil { facts.append("by meaning") }
            print(indent + Output.dim(facts.joined(separator: " · ")))
            if !result.snippet.text.isEmpty { print(indent + Output.snippet(result.snippet)) }
            if !result.keywords.isEmpty {
                // A long list is shortened: the first eight, and how many more.
                let shown = result.keywords.prefix(Self.keywordsShown).joined(separator: ", ")
                let more = result.keywords.count - Self.keywordsShown
                print(indent + Output.dim("keywords: " + shown + (more > 0 ? ", … (\(more) more)" : "")))
            }
            if let url = result.canonicalUrl { print(indent + Output.shown(url)) }
            print()
        }
    }
}

extension SearchCommand {
    /// The counts: a line per attribute, its values and counts (the first ten), or its least and
    /// greatest and how many fall in each range.
    fileprivate static func printFacets(_ facets: [Facet]) {
        guard !facets.isEmpty else { return }
        print(Output.bold("Counts over every match"))
        let width = facets.map(\.name.count).max() ?? 0
        for facet in facets {
            let name = (facet.name + ":").padding(to: width + 2)
            switch facet.kind {
            case .text:
                let shown = facet.values.prefix(10).map { "\(Output.shown($0.value)) \($0.count)" }
                let more = facet.values.count > 10 ? " · … (\(facet.values.count - 10) more)" : ""
                print(name + (shown.isEmpty ? Output.dim("none") : shown.joined(separator: " · ") + more))
            case .number:
                guard let minimum = facet.minimum, let maximum = facet.maximum else {
                    print(name + Output.dim("none"))
                    continue
                }
                let ranges = facet.buckets.map { "\(Output.number($0.from))–\(Output.number($0.to)) \($0.count)" }
                print(
                    name + "\(Output.number(minimum)) to \(Output.number(maximum))"
                        + Output.dim(" · " + ranges.joined(separator: " · ")))
            case .date, .point:
                guard let minimum = facet.minimum, let maximum = facet.maximum else {
                    print(name + Output.dim("none"))
                    continue
                }
                print(name + "\(Output.date(Int64(minimum))) to \(Output.date(Int64(maximum)))")
            }
        }
    }
}

extension String {
    /// The text padded with spaces to `width` characters.
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// The text in typographic quotes, made harmless for a terminal.
    var quotedForDisplay: String { "“\(Output.shown(self))”" }

    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// Who a search (or `similar`) sees: `--domain`, `--all-domains` and `--scope`.
struct SearchVisibility: ParsableArguments {
    @Option(help: ArgumentHelp("Search as this domain (sees its private items).", valueName: "domain"))
    var domain: String?

    @Flag(help: "See every domain's items (the index owner's view).")
    var allDomains = false

    @Option(help: "Only public items, only private items, or all.")
    var scope: ScopeOption = .all

    /// The domain the search is made for; nil for every domain.
    var domainIdentifier: String? { allDomains ? nil : (domain ?? SearchableItem.defaultDomain) }

    func validate() throws {
        if domain != nil, allDomains { throw ValidationError("Use either --domain or --all-domains, not both") }
    }
}
