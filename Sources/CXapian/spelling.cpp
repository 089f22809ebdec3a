// Spelling suggestions under the typo rules, drawn only from words the caller may see.
//
// Xapian keeps one spelling table per database, filled with the title words of every item, public
// or private, of every domain. A word of the table may be one only another domain's private items
// hold: handing it out would let anyone test guesses against those items. Here a suggestion is a
// word that occurs in an item the search may see (its domain, scope and expiry applied), and a
// word that itself matches such an item is never replaced.
//
// A suggestion follows the rules of typos (SPEC §2.1, `typo_limit`): it keeps the word's first
// letter and is at most one typo away from a word of 5 to 8 letters, two from a longer one, none
// from a shorter one. Xapian's own suggestion (`get_spelling_suggestion`) changes first letters
// ("kettle" to "bottle"), so the table's words are searched here (`NearWords`, kept in the index's
// snapshot), nearest first, then the most frequent.

#include "spelling.hpp"

#include "columns.hpp"
#include "database.hpp"
#include "errors.hpp"
#include "language.hpp"
#include "matching.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "typos.hpp"
#include "visibility.hpp"

namespace cx {

namespace {

/// The most candidates checked against what the caller may see before giving up.
constexpr size_t most_checked = 32;

const NearWords &spelling_words(cx_database &database, Snapshot &snapshot) {
    if (!snapshot.spelling) {
        auto words = std::make_shared<NearWords>();
        for (auto it = database.reader.spellings_begin(); it != database.reader.spellings_end(); ++it)
            words->add(*it, it.get_termfreq());
        snapshot.spelling = words;
    }
    return *snapshot.spelling;
}

/// The first of `ranked` (unprefixed terms) that an item `request` may see holds, of the first
/// `most_checked`, or empty.
std::string first_visible(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const std::vector<std::string> &ranked) {
    for (size_t i = 0; i < ranked.size() && i < most_checked; ++i) {
        if (matches_visible_item(database, snapshot, request, Xapian::Query(ranked[i]))) return ranked[i];
    }
    return std::string();
}

}  // namespace

std::vector<std::string> reading_languages(cx_database &database, Snapshot &snapshot, const cx_search_request &request) {
    if (request.languages.length > 0) {
        std::vector<std::string> named;
        const std::string list = str(request.languages);
        for (size_t start = 0; start <= list.size();) {
            const size_t comma = std::min(list.find(',', start), list.size());
            if (const std::string code = language_code(list.substr(start, comma - start)); !code.empty())
                named.push_back(code);
            start = comma + 1;
        }
        return stemmings(named);
    }
    std::vector<std::string> codes;
    for (const auto &[code, items] : item_languages(database, snapshot)) codes.push_back(code);
    if (std::vector<std::string> every = stemmings(codes); every.size() <= 1) return every;
    // Read once a revision for each view of it (an item that expires in the meantime is still
    // read in: its language reads the query in one more way, and shows nothing of the item).
    const std::string key = str(request.domain) + '\x1f' + (request.all_domains ? '1' : '0') +
                            static_cast<char>('0' + static_cast<int>(request.scope));
    if (const auto found = snapshot.reading.find(key); found != snapshot.reading.end()) return found->second;
    std::vector<std::string> seen;
    for (const std::string &code : codes) {
        if (matches_visible_item(database, snapshot, request, Xapian::Query(attribute_term(slot::language, code))))
            seen.push_back(code);
    }
    std::vector<std::string> read = stemmings(seen);
    if (snapshot.reading.size() < Snapshot::visible_domains) snapshot.reading.emplace(key, read);
    return read;
}

bool matches_visible_item(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query) {
    Xapian::Enquire enquire(database.reader);
    set_counting_query(enquire, database.reader, visible_now(database, snapshot, request, query, false));
    return enquire.get_mset(0, 1, 1).size() > 0;
}

std::string visible_suggestion(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word) {
    // The spelling table holds title words, and a title word is an unprefixed term in every format.
    return first_visible(database, snapshot, request, spelling_words(database, snapshot).near(word));
}

std::string visible_correction(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word) {
    const std::shared_ptr<const NearWords> words = text_words(database, snapshot, word, keeps_fields(database, request));
    return first_visible(database, snapshot, request, words->near(word, false, &database.reader));
}

}  // namespace cx
