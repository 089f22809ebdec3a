internal import CXapian
import FoundationEssentials

/// The stop word lists of the languages Searchlight stems: words too common in their language to
/// tell items apart (`the`, `der`, `le`), which a relaxed question (``SearchResults/relaxed``)
/// weighs where they match but does not let select an item (SPEC §2.5). The lists are Snowball's,
/// from Debian's liblingua-stopwords-perl, written as text by `scripts/install-dependencies`.
public enum StopWords {
    /// Where the lists are looked for, first match first: `$SEARCHLIGHT_STOP_WORDS`, then
    /// `searchlight/stop-words` under `$XDG_DATA_HOME` (or `~/.local/share`), `/usr/local/share`
    /// and `/usr/share`; each a folder of `<code>.txt` files, one word per line.
    /// `SEARCHLIGHT_STOP_WORDS=none` looks nowhere: every word of a relaxed question selects.
    public static var searchPaths: [String] {
        installedDataPaths(variable: "SEARCHLIGHT_STOP_WORDS", relative: "searchlight/stop-words")
    }

    /// How many languages' lists this process reads questions with: loaded once, from the first
    /// of ``searchPaths`` that holds a list; 0 when none does.
    public static let languagesLoaded: Int = {
        for path in searchPaths {
            let count = withText(path) { cx_load_stop_words($0) }
            if count > 0 { return count }
        }
        return 0
    }()
}
