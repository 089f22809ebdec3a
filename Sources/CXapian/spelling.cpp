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

#include <optional>
#include <string>

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
    if (!snapshot.spelling) snapshot.spelling = kept_spelling_words(database, snapshot);
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

namespace {

/// What `Snapshot::visible_matches` knows `query` by for `request`: the query's serialisation, then
/// who asks and when (what `visible_now` reads of the request); none for a query holding a posting
/// source that cannot be serialised.
std::optional<std::string> visible_match_key(const cx_search_request &request, const Xapian::Query &query) {
    std::string key;
    try {
        key = query.serialise();
    } catch (const Xapian::Error &) {
        return std::nullopt;
    }
    key += '\0';
    key += str(request.domain);
    key += '\0';
    key += std::to_string(int(request.all_domains)) + ' ' + std::to_string(int(request.scope)) + ' ' +
           std::to_string(request.now_ms);
    return key;
}

/// What `snapshot` knows of whether `query` matches an item `request` may see now: asked of it, or of
/// one of its alternatives with a match.
std::optional<bool> known_visible_match(const Snapshot &snapshot, const cx_search_request &request,
                                        const Xapian::Query &query, const std::optional<std::string> &key) {
    if (key)
        if (const auto found = snapshot.visible_matches.find(*key); found != snapshot.visible_matches.end())
            return found->second;
    const Xapian::Query::op type = query.get_type();
    if (type != Xapian::Query::OP_OR && type != Xapian::Query::OP_SYNONYM) return std::nullopt;
    for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
        const Xapian::Query alternative = query.get_subquery(i);
        if (known_visible_match(snapshot, request, alternative, visible_match_key(request, alternative)) == true)
            return true;
    }
    return std::nullopt;
}

}  // namespace

bool matches_visible_item(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query) {
    const std::optional<std::string> key = visible_match_key(request, query);
    if (const std::optional<bool> known = known_visible_match(snapshot, request, query, key)) return *known;
    Xapian::Enquire enquire(database.reader);
    set_counting_query(enquire, database.reader, visible_now(database, snapshot, request, query, false));
    const bool matches = enquire.get_mset(0, 1, 1).size() > 0;
    if (key) {
        if (snapshot.visible_matches.size() >= Snapshot::kept_visible_matches) snapshot.visible_matches.clear();
        snapshot.visible_matches.emplace(*key, matches);
    }
    return matches;
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
