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
// ("kettle" to "bottle"), so the table's words are searched here: those of the same first letter
// and a near length, kept by first letter and length in the index's snapshot (`Snapshot`), nearest
// first, then the most frequent.

#include "spelling.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "database.hpp"
#include "matching.hpp"
#include "read.hpp"
#include "visibility.hpp"

namespace cx {

namespace {

/// The most candidates checked against what the caller may see before giving up.
constexpr size_t most_checked = 32;

std::u32string code_points(const std::string &word) {
    std::u32string points;
    for (Xapian::Utf8Iterator it(word); it != Xapian::Utf8Iterator(); ++it) points.push_back(*it);
    return points;
}

/// The edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`,
/// or `limit + 1` when there are more than `limit`.
unsigned edit_distance(const std::u32string &a, const std::u32string &b, unsigned limit) {
    const size_t n = a.size(), m = b.size();
    if ((n > m ? n - m : m - n) > limit) return limit + 1;
    std::vector<unsigned> before(m + 1), previous(m + 1), current(m + 1);
    for (size_t j = 0; j <= m; ++j) previous[j] = static_cast<unsigned>(j);
    for (size_t i = 1; i <= n; ++i) {
        current[0] = static_cast<unsigned>(i);
        unsigned least = current[0];
        for (size_t j = 1; j <= m; ++j) {
            const unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
            unsigned best = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) best = std::min(best, before[j - 2] + 1);
            current[j] = best;
            least = std::min(least, best);
        }
        if (least > limit) return limit + 1;
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return std::min(previous[m], limit + 1);
}

struct SpellingWord {
    std::string word;
    std::u32string points;
    Xapian::doccount frequency;
};

}  // namespace

unsigned typo_limit(size_t letters) { return letters < 5 ? 0 : letters < 9 ? 1 : 2; }

/// The spelling table's words, by first letter and then by length in code points.
struct SpellingWords {
    std::unordered_map<char32_t, std::vector<std::vector<SpellingWord>>> by_first;
};

namespace {

std::shared_ptr<const SpellingWords> read_spelling_words(const Xapian::Database &reader) {
    auto words = std::make_shared<SpellingWords>();
    for (auto it = reader.spellings_begin(); it != reader.spellings_end(); ++it) {
        SpellingWord entry{*it, code_points(*it), it.get_termfreq()};
        const size_t length = entry.points.size();
        if (length == 0) continue;
        std::vector<std::vector<SpellingWord>> &by_length = words->by_first[entry.points[0]];
        if (by_length.size() <= length) by_length.resize(length + 1);
        by_length[length].push_back(std::move(entry));
    }
    return words;
}

const SpellingWords &spelling_words(cx_database &database, Snapshot &snapshot) {
    if (!snapshot.spelling) snapshot.spelling = read_spelling_words(database.reader);
    return *snapshot.spelling;
}

/// The table's words a typo or two from `word` (`typo_limit`), of its first letter, nearest first,
/// then the most frequent.
std::vector<std::string> ranked_candidates(const SpellingWords &words, const std::string &word) {
    const std::u32string points = code_points(word);
    const unsigned limit = typo_limit(points.size());
    if (limit == 0) return {};
    const auto first = words.by_first.find(points[0]);
    if (first == words.by_first.end()) return {};
    const std::vector<std::vector<SpellingWord>> &by_length = first->second;
    std::vector<std::tuple<unsigned, Xapian::doccount, const std::string *>> found;
    for (size_t length = points.size() - limit; length <= points.size() + limit && length < by_length.size(); ++length) {
        for (const SpellingWord &entry : by_length[length]) {
            if (entry.word == word) continue;
            const unsigned edits = edit_distance(points, entry.points, limit);
            if (edits <= limit) found.emplace_back(edits, entry.frequency, &entry.word);
        }
    }
    std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) {
        if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
        if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
        return *std::get<2>(a) < *std::get<2>(b);
    });
    std::vector<std::string> ranked;
    for (const auto &entry : found) ranked.push_back(*std::get<2>(entry));
    return ranked;
}

}  // namespace

bool matches_visible_item(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query) {
    Xapian::Enquire enquire(database.reader);
    set_counting_query(enquire, database.reader, visible_now(database, snapshot, request, query, false));
    return enquire.get_mset(0, 1, 1).size() > 0;
}

std::string visible_suggestion(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word) {
    // The spelling table holds title words, and a title word is an unprefixed term in every format.
    const auto visible = [&](const std::string &candidate) {
        return matches_visible_item(database, snapshot, request, Xapian::Query(candidate));
    };
    const std::vector<std::string> ranked = ranked_candidates(spelling_words(database, snapshot), word);
    for (size_t i = 0; i < ranked.size() && i < most_checked; ++i) {
        if (visible(ranked[i])) return ranked[i];
    }
    return std::string();
}

}  // namespace cx
