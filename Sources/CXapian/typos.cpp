// The rules of typos (SPEC §2.1) and the word lists a word's typos are looked up in.
//
// A word is compared, by the Damerau–Levenshtein distance with a limit, only with the words that
// share its first letter and whose length is within the limit of its own: the lists are kept by
// first letter and length, built once a revision (`text_words`) or once a spelling table.

#include "typos.hpp"

#include <algorithm>
#include <tuple>

#include "read.hpp"

namespace cx {

namespace {

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

/// The fewest edits that turn `typed` into a beginning of `word` (of `typed`'s length, give or take
/// `limit`), or `limit + 1` when there are more than `limit`: the last row of the table of
/// `edit_distance`, its least entry of those lengths.
unsigned beginning_distance(const std::u32string &typed, const std::u32string &word, unsigned limit) {
    const size_t n = typed.size();
    if (word.size() + limit < n) return limit + 1;
    const std::u32string beginning = word.substr(0, std::min(word.size(), n + limit));
    unsigned best = limit + 1;
    for (size_t length = n > limit ? n - limit : 0; length <= beginning.size(); ++length)
        best = std::min(best, edit_distance(typed, beginning.substr(0, length), limit));
    return best;
}

/// Whether `term` is a word of the items' text: unprefixed (it begins with a lower-case letter,
/// ASCII or not: every prefix is upper case) and without a digit.
bool is_text_word(const std::string &term) {
    if (term.empty()) return false;
    const unsigned char first = static_cast<unsigned char>(term[0]);
    if (!((first >= 'a' && first <= 'z') || first >= 0x80)) return false;
    return std::none_of(term.begin(), term.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

unsigned typo_limit(size_t letters) { return letters < 5 ? 0 : letters < 9 ? 1 : 2; }

void NearWords::add(const std::string &word, Xapian::doccount frequency) {
    Xapian::Utf8Iterator it(word);
    if (it == Xapian::Utf8Iterator()) return;
    const char32_t first = *it;
    size_t length = 0;
    for (; it != Xapian::Utf8Iterator(); ++it) ++length;
    std::vector<std::vector<Entry>> &by_length = by_first_[first];
    if (by_length.size() <= length) by_length.resize(length + 1);
    by_length[length].push_back({word, frequency});
    ++count_;
}

std::vector<std::string> NearWords::near(const std::string &word, bool beginning) const {
    const std::u32string points = code_points(word);
    const unsigned limit = typo_limit(points.size());
    if (limit == 0) return {};
    const auto first = by_first_.find(points[0]);
    if (first == by_first_.end()) return {};
    const std::vector<std::vector<Entry>> &by_length = first->second;
    std::vector<std::tuple<unsigned, Xapian::doccount, const std::string *>> found;
    // A beginning is compared with the words of every longer length too.
    const size_t longest = beginning ? by_length.size() : std::min(by_length.size(), points.size() + limit + 1);
    for (size_t length = points.size() - limit; length < longest; ++length) {
        for (const Entry &entry : by_length[length]) {
            if (entry.word == word) continue;
            const std::u32string other = code_points(entry.word);
            const unsigned edits =
                beginning ? beginning_distance(points, other, limit) : edit_distance(points, other, limit);
            if (edits <= limit) found.emplace_back(edits, entry.frequency, &entry.word);
        }
    }
    std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) {
        if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
        if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
        return *std::get<2>(a) < *std::get<2>(b);
    });
    std::vector<std::string> ranked;
    ranked.reserve(found.size());
    for (const auto &entry : found) ranked.push_back(*std::get<2>(entry));
    return ranked;
}

std::shared_ptr<const NearWords> text_words(const Xapian::Database &reader, Snapshot &snapshot) {
    if (snapshot.text_words) return snapshot.text_words;
    auto words = std::make_shared<NearWords>();
    // The lower-case letters and the lead bytes of other scripts: no prefixed term is read.
    std::vector<std::string> starts;
    for (char c = 'a'; c <= 'z'; ++c) starts.emplace_back(1, c);
    for (int byte = 0xC0; byte <= 0xFF; ++byte) starts.emplace_back(1, static_cast<char>(byte));
    for (const std::string &start : starts)
        for (auto it = reader.allterms_begin(start); it != reader.allterms_end(start); ++it)
            if (is_text_word(*it)) words->add(*it, it.get_termfreq());
    snapshot.text_words = words;
    return words;
}

}  // namespace cx
