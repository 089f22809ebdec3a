import Foundation
import SearchlightTesting
import Testing

/// 2026-11-20 00:00 UTC plus one day, for the fixture's expiring item.
let fixtureExpiry = 1_795_132_800_000 + 86_400_000

let fixture = """
    [
      {"$canonical_identifier":"a1","$og_title":"Deep linking explained","$og_description":"How deep links open apps.",
       "$keywords":["deep linking"],"$publicly_indexable":true,"$exp_date":\(fixtureExpiry)},
      {"canonicalIdentifier":"p1","title":"Private note","contentDescription":"A private note about links.",
       "contentIndexMode":"private"}
    ]
    """

/// A workspace whose index holds the fixture.
func indexedWorkspace() throws -> Workspace {
    let workspace = try Workspace()
    let file = try workspace.write("fixture.json", fixture)
    let run = try workspace.run(["index", file, "--now", corpusNow])
    #expect(run.status == 0, "\(run.stderr)")
    return workspace
}

@Suite("searchlight index", .temporaryFolder)
struct IndexCommandTests {
    @Test("indexing the fixture prints the whole report")
    func report() throws {
        let workspace = try Workspace()
        let file = try workspace.write("fixture.json", fixture)
        let run = try workspace.run(["index", file, "--now", corpusNow, "--json"])
        #expect(run.status == 0)
        #expect(
            try canonicalJSON(run.stdout)
                == canonicalJSON(
                    #"{"added":2,"clamped":0,"errors":[],"expired":0,"indexed":2,"rejected":0,"unchanged":0,"updated":0}"#
                ))
        let again = try workspace.run(["index", file, "--now", corpusNow, "--json"])
        let unchanged = try again.object()
        #expect(unchanged["unchanged"] as? Int == 2 && unchanged["updated"] as? Int == 0)
        #expect(unchanged["indexed"] as? Int == 2)
    }

    @Test("the corpus indexes with no rejection; expired and clamped items are counted")
    func corpus() throws {
        let workspace = try Workspace()
        let run = try workspace.run(["index", repositoryRoot + "/corpus", "--now", corpusNow, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.object()
        #expect(report["rejected"] as? Int == 0)
        #expect((report["indexed"] as? Int ?? 0) >= 290)
        #expect((report["expired"] as? Int ?? 0) > 0)
        #expect((report["clamped"] as? Int ?? 0) > 0)
        let text = try workspace.run(["search", "深度链接", "--all-domains", "--now", corpusNow])
        #expect(text.status == 0)
        #expect(text.stdout.contains("深度链接入门"))
    }

    @Test("a truncated file is rejected with its line and column; the other files are indexed")
    func truncated() throws {
        let workspace = try Workspace()
        let good = try workspace.write("in/good.json", #"{"$canonical_identifier":"ok"}"#)
        _ = good
        let bad = try workspace.write("in/bad.json", "[{\"$canonical_identifier\":\"a\"},\n {\"$canonical_ident")
        let run = try workspace.run(["index", workspace.path + "/in", "--json", "--now", corpusNow])
        #expect(run.status == 1)
        let report = try run.object()
        #expect(report["indexed"] as? Int == 1)
        #expect(report["rejected"] as? Int == 1)
        let error = try #require((report["errors"] as? [[String: Any]])?.first)
        #expect(error["path"] as? String == bad)
        #expect(error["line"] as? Int == 2)
        #expect(error["column"] as? Int != nil)
        #expect(error["code"] as? Int == 2002)
        #expect(error["item"] is NSNull)
    }

    @Test("a missing identifier and a wrong type are rejected by item, naming the field")
    func badItems() throws {
        let workspace = try Workspace()
        let file = try workspace.write(
            "items.jsonl",
            """
            {"$canonical_identifier":"fine","$og_title":"Fine"}
            {"$og_title":"No identifier"}
            {"$canonical_identifier":"typed","$keywords":42}
            """)
        let run = try workspace.run(["index", file, "--json", "--now", corpusNow])
        #expect(run.status == 1)
        #expect(
            try canonicalJSON(run.stdout)
                == canonicalJSON(
                    """
                    {"added":1,"clamped":0,"expired":0,"indexed":1,"rejected":2,"unchanged":0,"updated":0,"errors":[
                     {"path":"\(file)","item":2,"line":2,"column":null,"code":1009,
                      "message":"A canonical identifier is required to uniquely identify content: add \\"$canonical_identifier\\" (or \\"canonicalIdentifier\\") with a non-empty string"},
                     {"path":"\(file)","item":3,"line":3,"column":null,"code":2001,
                      "message":"\\"$keywords\\" must be an array of strings or a string, not a number (42)"}]}
                    """))
    }

    @Test("--strict writes nothing when anything is rejected")
    func strict() throws {
        let workspace = try Workspace()
        let good = try workspace.write("good.json", #"{"$canonical_identifier":"ok"}"#)
        let bad = try workspace.write("bad.json", #"{"$og_title":"no id"}"#)
        let run = try workspace.run(["index", good, bad, "--strict", "--json", "--now", corpusNow])
        #expect(run.status == 1)
        #expect(try run.object()["indexed"] as? Int == 0)
        let stats = try workspace.run(["stats", "--json"])
        #expect(try stats.object()["documents"] as? Int == 0)
    }

    @Test("an empty file is reported; standard input is read with -")
    func emptyAndStdin() throws {
        let workspace = try Workspace()
        let empty = try workspace.write("empty.json", "")
        let run = try workspace.run(["index", empty, "--json"])
        #expect(run.status == 1)
        #expect((try run.object()["errors"] as? [[String: Any]])?.first?["code"] as? Int == 2002)
        let piped = try workspace.run(["index", "-", "--json"], stdin: #"{"$canonical_identifier":"from-stdin"}"#)
        #expect(piped.status == 0)
        #expect(try piped.object()["added"] as? Int == 1)
    }

    @Test("a path that does not exist is rejected by name")
    func missingPath() throws {
        let workspace = try Workspace()
        let run = try workspace.run(["index", workspace.path + "/nope.json"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("No such file or directory: \(workspace.path)/nope.json"))
    }

    @Test("bad durations are usage errors", arguments: [["--max-ttl", "forever"], ["--default-ttl", "3 weeks"]])
    func badDuration(option: [String]) throws {
        let workspace = try Workspace()
        let file = try workspace.write("f.json", #"{"$canonical_identifier":"x"}"#)
        let run = try workspace.run(["index", file] + option)
        #expect(run.status == 64)
        #expect(run.stderr.contains(option[0]))
    }

    @Test("none is a duration: --max-ttl none keeps a far expiration, --default-ttl none keeps items forever")
    func noneDurations() throws {
        let workspace = try Workspace()
        let far = 1_795_132_800_000 + 400 * 86_400_000
        let file = try workspace.write(
            "f.json", #"[{"$canonical_identifier":"far","$exp_date":\#(far)},{"$canonical_identifier":"plain"}]"#)
        let run = try workspace.run(
            ["index", file, "--max-ttl", "none", "--default-ttl", "none", "--now", corpusNow, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.object()["clamped"] as? Int == 0)
        let item = try workspace.run(["get", "far", "--now", corpusNow, "--json"])
        #expect(try item.object()["$exp_date"] as? Int == far)
        let plain = try workspace.run(["get", "plain", "--now", corpusNow, "--json"])
        #expect(try plain.object()["$exp_date"] == nil)
    }

    @Test("a second writer with --lock-timeout 0 exits 75; with a wait it succeeds")
    func lock() throws {
        let workspace = try Workspace()
        let file = try workspace.write("f.json", #"{"$canonical_identifier":"x"}"#)
        #expect(try workspace.run(["index", file]).status == 0)
        // The first writer holds the lock while it waits for standard input.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: binaryPath)
        holder.arguments = ["index", "-", "--index", workspace.index]
        let input = Pipe()
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        var locked: Run?
        for _ in 0..<100 {
            let attempt = try workspace.run(["index", file, "--lock-timeout", "0"])
            if attempt.status == 75 {
                locked = attempt
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let run = try #require(locked)
        #expect(run.stderr.contains("is locked by another writer"))
        #expect(run.stderr.contains("raise --lock-timeout"))
        #expect(run.stderr.contains("code 2005"))
        // A writer that waits gets the lock once the first finishes.
        input.fileHandleForWriting.write(Data(#"{"$canonical_identifier":"y"}"#.utf8))
        try input.fileHandleForWriting.close()
        let waiting = try workspace.run(["index", file, "--lock-timeout", "20"])
        holder.waitUntilExit()
        #expect(holder.terminationStatus == 0)
        #expect(waiting.status == 0)
        #expect(FileManager.default.fileExists(atPath: workspace.index + "/flintlock"))
    }
}

@Suite("searchlight search", .temporaryFolder)
struct SearchCommandTests {
    @Test("JSON output is the whole result document")
    func json() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["search", "deep", "--json", "--now", corpusNow])
        #expect(run.status == 0)
        #expect(
            try canonicalJSON(run.stdout)
                == canonicalJSON(
                    """
                    {"query":"deep","total":1,"totalIsEstimate":false,"offset":0,"limit":20,"suggestion":null,"results":[
                      {"canonicalIdentifier":"a1","domain":"default","title":"Deep linking explained",
                       "contentDescription":"How deep links open apps.","keywords":["deep linking"],
                       "canonicalUrl":null,"imageUrl":null,"contentIndexMode":"public",
                       "expirationDate":\(fixtureExpiry),"score":100,"matchedBy":["words"],
                       "snippet":"How <mark>deep</mark> links open apps."}],"relaxed":false}
                    """))
    }

    @Test("text output is plain when stdout is not a terminal")
    func text() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["search", "links", "--now", corpusNow])
        #expect(run.status == 0)
        #expect(
            run.stdout == """
                2 results for “links”, showing 1–2

                1. Deep linking explained
                   a1 · default · public · expires 2026-11-21 00:00 UTC · 100%
                   How deep links open apps.
                   keywords: deep linking

                2. Private note
                   p1 · default · private · 59%
                   A private note about links.


                """)
        #expect(!run.stdout.contains("\u{1B}"))
    }

    @Test("text output shows escape sequences and bidi controls harmlessly; JSON keeps them")
    func terminalSafety() throws {
        let workspace = try Workspace()
        let file = try workspace.write(
            "hostile.json",
            #"{"$canonical_identifier":"evil\u001b]0;x\u0007","$og_title":"Red \u001b[31mlamp\u202e","$og_description":"A lamp\u001b[2J here","$keywords":["k\u009b1"]}"#
        )
        #expect(try workspace.run(["index", file]).status == 0)
        let text = try workspace.run(["search", "lamp", "--all-domains"])
        #expect(!text.stdout.contains("\u{1B}") && !text.stdout.contains("\u{202E}") && !text.stdout.contains("\u{9B}"))
        #expect(text.stdout.contains(#"Red \u{1B}[31mlamp\u{202E}"#))
        let get = try workspace.run(["get", "evil\u{1B}]0;x\u{07}", "--domain", "default"])
        #expect(!get.stdout.contains("\u{1B}") && get.stdout.contains(#"A lamp\u{1B}[2J here"#))
        let missing = try workspace.run(["remove", "gone\u{1B}[31m"])
        #expect(!missing.stdout.contains("\u{1B}") && !missing.stderr.contains("\u{1B}"))
        let json = try workspace.run(["search", "lamp", "--all-domains", "--json"])
        let results = try #require(try json.object()["results"] as? [[String: Any]])
        #expect(results.first?["title"] as? String == "Red \u{1B}[31mlamp\u{202E}")
    }

    @Test("-word after -- excludes; an unknown option is a usage error, never a query word")
    func exclusion() throws {
        let workspace = try indexedWorkspace()
        let unknown = try workspace.run(["search", "links", "--limt", "5"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Unknown option '--limt'"))
        let dash = try workspace.run(["search", "links", "-private"])
        #expect(dash.status == 64)
        let negative = try workspace.run(["search", "links", "--limit", "-5"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--limit must be between 0 and 1000"))
        let run = try workspace.run(["search", "--json", "--now", corpusNow, "--", "links", "-private"])
        #expect(run.status == 0)
        #expect(
            ((try run.object()["results"]) as? [[String: Any]])?.map { $0["canonicalIdentifier"] as? String } == ["a1"])
    }

    @Test("visibility: another domain sees only public items; --all-domains sees all")
    func visibility() throws {
        let workspace = try indexedWorkspace()
        let other = try workspace.run(["search", "--domain", "com.other", "--json", "--now", corpusNow])
        #expect(try other.object()["total"] as? Int == 1)
        let all = try workspace.run(["search", "--all-domains", "--scope", "private", "--json", "--now", corpusNow])
        #expect(try all.object()["total"] as? Int == 1)
        let conflict = try workspace.run(["search", "x", "--domain", "a", "--all-domains"])
        #expect(conflict.status == 64)
    }

    @Test("an expired item is not returned")
    func expired() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["search", "deep", "--json", "--now", String(fixtureExpiry)])
        #expect(try run.object()["total"] as? Int == 0)
    }

    @Test("a value a field cannot read exits 64 with a JSON error naming the query")
    func malformed() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["search", "mode:secret", "--json"])
        #expect(run.status == 64)
        #expect(
            try canonicalJSON(run.stdout)
                == canonicalJSON(
                    #"{"error":{"code":2004,"message":"The query \"mode:secret\" cannot be parsed: mode: takes public or private, not 'secret' (column 1)"}}"#
                ))
        #expect(run.stderr.contains("public or private"))
    }

    @Test("a pasted question with a quote or parenthesis left open is read, and the output says how")
    func readAs() throws {
        let workspace = try indexedWorkspace()
        let json = try workspace.run(["search", "(deep \"linking", "--json", "--now", corpusNow])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try json.object()["readAs"] as? String == "deep \"linking\"")
        #expect((try json.object()["total"] as? Int ?? 0) > 0)
        let text = try workspace.run(["search", "deep AND", "--now", corpusNow])
        #expect(text.status == 0 && text.stdout.contains("Read as: deep and"), "\(text.stdout)")
        let plain = try workspace.run(["search", "deep linking", "--json"])
        #expect(try plain.object()["readAs"] == nil)
    }

    @Test("a spelling suggestion is shown when nothing matches")
    func suggestion() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["search", "explaned", "--now", corpusNow, "--typos", "off"])
        #expect(run.stdout == "No results for “explaned”.\nDid you mean: explained?\n")
        // With typos on (the default), the word one typo away is found instead.
        let found = try workspace.run(["search", "explaned", "--now", corpusNow, "--format", "ids"])
        #expect(found.status == 0 && !found.stdout.isEmpty, "\(found.stderr)")
    }

    @Test("on the sample corpus, a suggestion keeps the first letter and a short word is not replaced")
    func suggestionRules() throws {
        let workspace = try Workspace()
        #expect(
            try workspace.run(["index", repositoryRoot + "/corpus", "--now", corpusNow, "--no-meaning"]).status == 0)
        func suggestion(_ query: String) throws -> Any? {
            try workspace.run(["search", "--json", "--typos", "off", "--now", corpusNow, "--", query]).object()[
                "suggestion"]
        }
        #expect(try suggestion("spotlght") as? String == "spotlight")
        for query in ["kettle", "a pot to heat water", "Apfelkuchen backen", "title deep"] {
            #expect(try suggestion(query) is NSNull, "\(query)")
        }
    }

    @Test("a missing index exits 66")
    func missingIndex() throws {
        let workspace = try Workspace()
        let run = try workspace.run(["search", "x"])
        #expect(run.status == 66)
        #expect(run.stderr.contains("There is no index at \(workspace.index)"))
        #expect(run.stderr.contains("or name another with --index"))
        let json = try workspace.run(["stats", "--json"])
        #expect(json.status == 66)
        let message = try #require((try json.object()["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("searchlight index FILE"))
    }

    @Test("a folder that is not an index exits 1 with what to check, not 66")
    func notAnIndex() throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.index, withIntermediateDirectories: true)
        let run = try workspace.run(["search", "x"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("Cannot open the index at \(workspace.index)"))
        #expect(run.stderr.contains("check the path (or --index)"))
        #expect(run.stderr.contains("code 1010"))
    }

    @Test("compact rewrites the index as a new generation and reports the sizes")
    func compact() throws {
        let workspace = try indexedWorkspace()
        let json = try workspace.run(["compact", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try json.object()
        #expect(Set(report.keys) == ["bytesBefore", "bytesAfter"])
        #expect((report["bytesAfter"] as? Int ?? 0) > 0)
        #expect(FileManager.default.fileExists(atPath: workspace.index + "/gen-000001/iamglass"))
        let text = try workspace.run(["compact"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("Compacted \(workspace.index): "))
        #expect(try workspace.run(["search", "deep", "--now", corpusNow, "--json"]).object()["total"] as? Int == 1)
        let missing = try workspace.run(["compact", "--index", workspace.path + "/nothing"])
        #expect(missing.status == 66)
        #expect(!FileManager.default.fileExists(atPath: workspace.path + "/nothing"))
    }

    @Test("the index defaults to $SEARCHLIGHT_INDEX, then $XDG_DATA_HOME/searchlight/index")
    func defaultLocation() throws {
        let workspace = try Workspace()
        let file = try workspace.write("f.json", #"{"$canonical_identifier":"x","$og_title":"Lighthouse"}"#)
        let xdg = ["XDG_DATA_HOME": workspace.path + "/xdg", "SEARCHLIGHT_INDEX": ""]
        #expect(try runBinary(["index", file], environment: xdg).status == 0)
        #expect(FileManager.default.fileExists(atPath: workspace.path + "/xdg/searchlight/index/iamglass"))
        #expect(try runBinary(["search", "lighthouse"], environment: xdg).stdout.contains("Lighthouse"))
        let explicit = ["SEARCHLIGHT_INDEX": workspace.path + "/env-index"]
        #expect(try runBinary(["index", file], environment: explicit).status == 0)
        #expect(FileManager.default.fileExists(atPath: workspace.path + "/env-index/iamglass"))
    }
}

@Suite("searchlight get, remove, prune, stats and export", .temporaryFolder)
struct OtherCommandTests {
    @Test("get prints the Branch dictionary plus domain and contentIndexMode")
    func get() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["get", "p1", "--json", "--now", corpusNow])
        #expect(run.status == 0)
        #expect(
            try canonicalJSON(run.stdout)
                == canonicalJSON(
                    #"{"$canonical_identifier":"p1","$og_title":"Private note","$og_description":"A private note about links.","contentIndexMode":"private","domain":"default","source":"\#(workspace.path)/fixture.json"}"#
                ))
        let missing = try workspace.run(["get", "nope", "--json"])
        #expect(missing.status == 1)
        #expect(try missing.object()["error"] != nil)
    }

    @Test("remove reports removed, not found and refused public items")
    func remove() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["remove", "p1", "a1", "ghost", "--json"])
        #expect(run.status == 1)
        #expect(
            try canonicalJSON(run.stdout)
                == canonicalJSON(
                    """
                    {"removed":1,"notFound":["ghost"],"refused":[{"id":"a1","code":1014,
                     "message":"Spotlight cannot remove publicly indexed content; it leaves the index when it expires (or pass --include-public)"}]}
                    """))
        let forced = try workspace.run(["remove", "a1", "--include-public", "--json"])
        #expect(forced.status == 0)
        #expect(try forced.object()["removed"] as? Int == 1)
    }

    @Test("get and remove take the Branch iOS SDK's long link for an item; a link without an identifier is 1013")
    func branchLinks() throws {
        let workspace = try Workspace()
        #expect(try workspace.run(["index", try workspace.write("item.json", sdkDictionary)]).status == 0)
        let got = try workspace.run(["get", branchLink(json: sdkDictionaryReordered, percentEncoded: true), "--json"])
        #expect(got.status == 0)
        #expect(try got.object()["$canonical_identifier"] as? String == "article/deep-linking")
        let bad = branchLink(json: #"{"$og_title":"No identifier"}"#)
        let refused = try workspace.run(["get", bad, "--json"])
        #expect(refused.status == 1)
        let error = try refused.object()["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 1013)
        #expect((error?["message"] as? String)?.contains("without a canonical identifier") == true)
        let removed = try workspace.run(["remove", branchLink(json: sdkDictionary), bad, "--json"])
        #expect(removed.status == 1)
        let report = try removed.object()
        #expect(report["removed"] as? Int == 1)
        #expect((report["refused"] as? [[String: Any]])?.first?["code"] as? Int == 1013)
        #expect(try workspace.run(["stats", "--json"]).object()["documents"] as? Int == 0)
    }

    @Test("a script can pipe identifiers to remove -")
    func removeFromStdin() throws {
        let workspace = try Workspace()
        let items = (1...5).map { #"{"$canonical_identifier":"draft/\#($0)"}"# }.joined(separator: "\n")
        let file = try workspace.write("drafts.jsonl", items)
        #expect(try workspace.run(["index", file, "--domain", "com.example.cms"]).status == 0)
        let run = try workspace.run(
            ["remove", "-", "--domain", "com.example.cms", "--json"], stdin: "draft/1\ndraft/2\n\n  draft/3  \n")
        #expect(run.status == 0)
        #expect(try canonicalJSON(run.stdout) == canonicalJSON(#"{"removed":3,"notFound":[],"refused":[]}"#))
        let empty = try workspace.run(["remove", "-", "--domain", "com.example.cms"], stdin: "")
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("code 1013"))
    }

    @Test("remove --from FILE and --all-private")
    func removeFromFilesAndAll() throws {
        let workspace = try indexedWorkspace()
        let list = try workspace.write("remove.json", #"[{"$canonical_identifier":"p1"}]"#)
        let run = try workspace.run(["remove", "--from", list, "--json"])
        #expect(try canonicalJSON(run.stdout) == canonicalJSON(#"{"removed":1,"notFound":[],"refused":[]}"#))
        let file = try workspace.write("more.json", #"[{"$canonical_identifier":"q1"},{"$canonical_identifier":"q2"}]"#)
        #expect(try workspace.run(["index", file]).status == 0)
        let all = try workspace.run(["remove", "--all-private", "--json"])
        #expect(try canonicalJSON(all.stdout) == canonicalJSON(#"{"removed":2,"notFound":[],"refused":[]}"#))
        #expect(try workspace.run(["stats", "--json"]).object()["documents"] as? Int == 1)
    }

    @Test("remove with nothing to remove is a usage error")
    func removeUsage() throws {
        let workspace = try indexedWorkspace()
        #expect(try workspace.run(["remove"]).status == 64)
        #expect(try workspace.run(["remove", "a", "--all-private"]).status == 64)
    }

    @Test("prune deletes expired items; --dry-run only counts")
    func prune() throws {
        let workspace = try indexedWorkspace()
        let later = String(fixtureExpiry)
        let dry = try workspace.run(["prune", "--dry-run", "--json", "--now", later])
        #expect(try canonicalJSON(dry.stdout) == canonicalJSON(#"{"pruned":1,"dryRun":true}"#))
        let run = try workspace.run(["prune", "--now", later])
        #expect(run.stdout == "Pruned 1 expired item\n")
        #expect(try workspace.run(["stats", "--json"]).object()["documents"] as? Int == 1)
    }

    @Test("stats prints counts, domains and size")
    func stats() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["stats", "--json", "--now", String(fixtureExpiry)])
        let stats = try run.object()
        #expect(stats["path"] as? String == workspace.index)
        #expect(stats["documents"] as? Int == 2)
        #expect(stats["public"] as? Int == 1)
        #expect(stats["private"] as? Int == 1)
        #expect(stats["expired"] as? Int == 1)
        #expect(stats["domains"] as? [String: Int] == ["default": 2])
        #expect((stats["sizeBytes"] as? Int ?? 0) > 0)
    }

    @Test("view records views by identifier, or read from standard input; unknown ones are listed, not created")
    func view() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["view", "p1", "p1", "ghost", "--json", "--now", corpusNow])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try canonicalJSON(run.stdout) == canonicalJSON(#"{"recorded":2,"notFound":["ghost"]}"#))
        let text = try workspace.run(["view", "p1", "--now", corpusNow])
        #expect(text.stdout == "Recorded 1 view\n")
        let piped = try workspace.run(["view", "-", "--json", "--now", corpusNow], stdin: "p1\n\n  p1  \nghost\n")
        #expect(try canonicalJSON(piped.stdout) == canonicalJSON(#"{"recorded":2,"notFound":["ghost"]}"#))
        let export = try workspace.run(["export", "--now", corpusNow])
        #expect(export.stdout.split(separator: "\n").contains { $0.contains(#""searchlight:views":5"#) })
        #expect(try workspace.run(["view"]).status == 64)
        #expect(try workspace.run(["view", "-", "p1"]).status == 64)
    }

    @Test("export, index the export into a new index, export again: the same lines, views included")
    func exportRoundTrip() throws {
        let workspace = try Workspace()
        #expect(try workspace.run(["index", repositoryRoot + "/corpus", "--now", corpusNow]).status == 0)
        let sample = try workspace.run(["export", "--all-domains", "--now", corpusNow]).stdout.split(separator: "\n")
        let line = try #require(sample.first)
        let item = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let viewed = try workspace.run([
            "view", item["$canonical_identifier"] as? String ?? "", "--domain", item["domain"] as? String ?? "",
            "--now", corpusNow, "--json",
        ])
        #expect(try viewed.object()["recorded"] as? Int == 1)
        let first = try workspace.run(["export", "--all-domains", "--now", corpusNow])
        #expect(first.stdout.contains(#""searchlight:views":1"#))
        #expect(first.status == 0)
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.count > 250)
        let file = try workspace.write("export.jsonl", first.stdout)
        let copy = workspace.path + "/copy"
        let reindex = try workspace.run(["index", file, "--index", copy, "--now", corpusNow, "--json"])
        #expect(try reindex.object()["indexed"] as? Int == lines.count)
        let second = try workspace.run(["export", "--all-domains", "--index", copy, "--now", corpusNow])
        // The same items, each still naming the corpus file it was first indexed from.
        #expect(
            second.stdout.split(separator: "\n").allSatisfy { $0.contains(#""source":"\#(repositoryRoot)/corpus/"#) })
        #expect(Set(second.stdout.split(separator: "\n")) == Set(first.stdout.split(separator: "\n")))
        let shop = try workspace.run(["export", "--domain", "com.example.shop", "--now", corpusNow])
        #expect(shop.stdout.split(separator: "\n").allSatisfy { $0.contains(#""domain":"com.example.shop""#) })
    }
}

@Suite("Usage and help", .temporaryFolder)
struct UsageTests {
    @Test("an unknown option is a usage error (64)")
    func unknownOption() throws {
        let run = try runBinary(["stats", "--frobnicate"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("Unknown option '--frobnicate'"))
    }

    @Test(
        "every subcommand's help has examples",
        arguments: ["index", "search", "get", "remove", "prune", "stats", "export"])
    func help(subcommand: String) throws {
        let run = try runBinary([subcommand, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Examples:"))
        #expect(run.stdout.contains("--index"))
    }

    /// A subcommand is parsed on its own when it can be (Main.subcommandParsedAlone); what only
    /// the root answers must still be answered when it follows the subcommand.
    @Test(
        "after a subcommand, --version, --help and completion scripts answer as the root does",
        arguments: ["index", "search", "get", "remove", "prune", "stats", "export", "compact", "view"])
    func rootFlagsAfterSubcommand(subcommand: String) throws {
        let version = try runBinary(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
        let afterSubcommand = try runBinary([subcommand, "--version"])
        #expect(afterSubcommand.status == 0)
        #expect(afterSubcommand.stdout == version.stdout)

        // The help of `searchlight SUBCOMMAND`, with the root's --version, not the subcommand's alone.
        let help = try runBinary([subcommand, "--index", "/nonexistent", "-h"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: searchlight \(subcommand)"))
        #expect(help.stdout.contains("--version"))

        for request in [["--generate-completion-script", "bash"], ["--generate-completion-script=zsh"]] {
            let script = try runBinary([subcommand] + request)
            #expect(script.status == 0, "\(request)")
            #expect(script.stdout.contains("searchlight"), "\(request)")
            #expect(script.stdout.contains("_searchlight"), "\(request): \(script.stdout.prefix(200))")
        }
    }

    @Test("a subcommand's usage error names the whole command")
    func usageErrorAfterSubcommand() throws {
        let run = try runBinary(["search", "--limit", "many", "lamp"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("The value 'many' is invalid for '--limit <limit>'"))
        #expect(run.stderr.contains("Usage: searchlight search"))
    }

    @Test("the top-level help lists the subcommands")
    func topLevelHelp() throws {
        let run = try runBinary(["--help"])
        #expect(run.status == 0)
        for name in ["index", "search", "get", "remove", "prune", "stats", "export", "serve"] {
            #expect(run.stdout.contains("  \(name)"))
        }
    }

    @Test("serve is the service's own program: its help and usage errors, and none of its code in searchlight")
    func serveIsItsOwnProgram() throws {
        let help = try runBinary(["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: searchlight serve") && help.stdout.contains("--tokens"))
        let bad = try runBinary(["serve", "--port", "70000"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--port must be between 0 and 65535"))
        let binary = try Data(contentsOf: URL(fileURLWithPath: binaryPath))
        #expect(binary.range(of: Data("Hummingbird".utf8)) == nil)
        #expect(binary.range(of: Data("NIOCore".utf8)) == nil)
    }

    @Test("serve without searchlight-server installed says what is missing (1)")
    func serveWithoutServer() throws {
        let folder = try TemporaryFolder.subfolder("alone")
        let alone = folder + "/searchlight"
        try FileManager.default.copyItem(atPath: binaryPath, toPath: alone)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: alone)
        process.arguments = ["serve"]
        process.environment = ["PATH": folder]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("cannot run searchlight-server") && message.contains("install it next to searchlight"))
    }
}

@Suite("Output for scripts and logs: --format ids, --quiet, --progress, --color", .temporaryFolder)
struct ScriptOutputTests {
    @Test("--format ids prints the identifiers one a line, in rank order; long keyword lists are shortened")
    func ids() throws {
        let workspace = try indexedWorkspace()
        let ids = try workspace.run(["search", "links", "--format", "ids", "--now", corpusNow])
        let json = try workspace.run(["search", "links", "--json", "--now", corpusNow]).object()
        let expected = (json["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String }
        #expect(ids.status == 0 && !expected.isEmpty && ids.stdout == expected.map { $0 + "\n" }.joined())
        let both = try workspace.run(["search", "links", "--format", "ids", "--json"])
        #expect(both.status == 64 && both.stderr.contains("either --json or --format ids"))

        let keywords = (1...12).map { "\"k\($0)\"" }.joined(separator: ",")
        let file = try workspace.write(
            "many.json", #"{"$canonical_identifier":"many","$og_title":"Many keywords","$keywords":[\#(keywords)]}"#)
        #expect(try workspace.run(["index", file]).status == 0)
        let text = try workspace.run(["search", "many keywords"]).stdout
        #expect(text.contains("keywords: k1, k2, k3, k4, k5, k6, k7, k8, … (4 more)"))
    }

    @Test("--quiet prints no summary, only rejections; --progress reports to a log")
    func quietAndProgress() throws {
        let workspace = try Workspace()
        let quiet = try workspace.run(["index", repositoryRoot + "/corpus", "--quiet", "--now", corpusNow])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let broken = try workspace.write("broken.jsonl", #"{"$og_title":"No identifier"}"# + "\n")
        let rejected = try workspace.run(["index", broken, "-q"])
        #expect(rejected.status == 1 && rejected.stdout.isEmpty && rejected.stderr.contains("canonical identifier"))
        let logged = try workspace.run(["index", repositoryRoot + "/corpus", "--progress", "--now", corpusNow])
        #expect(logged.status == 0 && logged.stderr.contains("Indexed 1/8 files"))
        #expect(!logged.stderr.contains("\u{1B}"))
        let both = try workspace.run(["index", broken, "--quiet", "--progress"])
        #expect(both.status == 64)
    }

    @Test("--color always styles text output that is not a terminal's; never and auto do not")
    func color() throws {
        let workspace = try indexedWorkspace()
        let always = try workspace.run(["search", "links", "--color", "always"], environment: ["NO_COLOR": ""])
        #expect(always.stdout.contains("\u{1B}[1m"))
        for choice in ["never", "auto"] {
            #expect(!(try workspace.run(["search", "links", "--color", choice]).stdout.contains("\u{1B}")))
        }
    }

    @Test("NEAR and ADJ between words are words, as any other")
    func proximity() throws {
        let workspace = try indexedWorkspace()
        let run = try workspace.run(["search", "deep NEAR links", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.object()["readAs"] == nil)
    }
}
