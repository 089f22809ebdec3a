// The rules of typos (SPEC §2.1) and the word lists a word's typos are looked up in.
//
// A word is compared, by the Damerau–Levenshtein distance with a limit, only with the words that
// share its first letter, whose length is within the limit of its own and whose letters allow it
// (`letters_allow`): the lists are kept by first letter and length, built once a revision for every
// reader of this process (`text_words`) or once a spelling table.

#include "typos.hpp"

#include <algorithm>
#include <tuple>

#include "columns.hpp"
#include "database.hpp"
#include "read.hpp"
#include "schema.hpp"

namespace cx {

namespace {

std::u32string code_points(const std::string &word) {
    std::u32string points;
    for (Xapian::Utf8Iterator it(word); it != Xapian::Utf8Iterator(); ++it) points.push_back(*it);
    return points;
}

/// The longest word compared, in code points: longer ones are matched as typed.
constexpr size_t longest_compared = 48;

/// The edits (insertions, deletions, substitutions, swaps of neighbours: the Damerau–Levenshtein
/// distance, optimal string alignment) that turn `a` into `b`, or, with `beginning`, into a
/// beginning of `b` of `a`'s length give or take `limit` (the least entry of the table's last row
/// among those lengths); `limit + 1` when there are more than `limit`. One table, three rows on
/// the stack, left as soon as a row holds nothing within the limit.
unsigned distance(const std::u32string &a, const std::u32string &b, unsigned limit, bool beginning) {
    const size_t n = a.size();
    const size_t m = beginning ? std::min(b.size(), n + limit) : b.size();
    if (n > longest_compared || m > longest_compared) return limit + 1;
    if ((n > m ? n - m : m - n) > limit) return limit + 1;
    unsigned rows[3][longest_compared + 1];
    unsigned *before = rows[0], *previous = rows[1], *current = rows[2];
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
    if (!beginning) return std::min(previous[m], limit + 1);
    unsigned best = limit + 1;
    for (size_t j = n > limit ? n - limit : 0; j <= m; ++j) best = std::min(best, previous[j]);
    return best;
}

/// The letters of `points`, each as bit `letter % 64`. Each typo takes at most one bit from a
/// word's letters and adds at most one (a letter changed; one added or missing moves one bit, two
/// swapped none), and letters that share a bit only merge changes: a word `limit` typos from
/// another lacks at most `limit` of its bits, and holds at most `limit` it lacks. Two AND-NOTs and
/// popcounts leave out most of the words a length and first letter share before any table is
/// filled.
uint64_t letters_of(const std::u32string &points) {
    uint64_t letters = 0;
    for (const char32_t point : points) letters |= uint64_t(1) << (point & 63);
    return letters;
}

/// Whether `a`'s letters and `b`'s allow `limit` typos between the words (`letters_of`); with
/// `beginning`, between `a` and a beginning of `b`, which holds only letters `b` holds.
bool letters_allow(uint64_t a, uint64_t b, unsigned limit, bool beginning) {
    if (unsigned(__builtin_popcountll(a & ~b)) > limit) return false;
    return beginning || unsigned(__builtin_popcountll(b & ~a)) <= limit;
}

}  // namespace

bool is_text_word(const std::string &term) {
    if (term.empty()) return false;
    const unsigned char first = static_cast<unsigned char>(term[0]);
    if (!((first >= 'a' && first <= 'z') || first >= 0x80)) return false;
    return std::none_of(term.begin(), term.end(), [](char c) { return c >= '0' && c <= '9'; });
}

unsigned typo_limit(size_t letters) { return letters < 5 ? 0 : letters < 9 ? 1 : 2; }

void NearWords::add(const std::string &word, Xapian::doccount frequency) {
    Xapian::Utf8Iterator it(word);
    if (it == Xapian::Utf8Iterator()) return;
    const char32_t first = *it;
    size_t length = 0;
    for (; it != Xapian::Utf8Iterator(); ++it) ++length;
    std::vector<std::vector<Entry>> &by_length = by_first_[first];
    if (by_length.size() <= length) by_length.resize(length + 1);
    std::u32string points = code_points(word);
    const uint64_t letters = letters_of(points);
    by_length[length].push_back({word, std::move(points), frequency, letters});
    ++count_;
}

void NearWords::collect(const std::u32string &points, const std::string &word, unsigned limit, bool beginning,
                        std::vector<std::pair<unsigned, const Entry *>> &found) const {
    if (base_) base_->collect(points, word, limit, beginning, found);
    const auto first = by_first_.find(points[0]);
    if (first == by_first_.end()) return;
    const std::vector<std::vector<Entry>> &by_length = first->second;
    const uint64_t letters = letters_of(points);
    // A beginning is compared with the words of every longer length too.
    const size_t longest = beginning ? by_length.size() : std::min(by_length.size(), points.size() + limit + 1);
    for (size_t length = points.size() - limit; length < longest; ++length) {
        for (const Entry &entry : by_length[length]) {
            if (!letters_allow(letters, entry.letters, limit, beginning) || entry.word == word) continue;
            const unsigned edits = distance(points, entry.points, limit, beginning);
            if (edits <= limit) found.emplace_back(edits, &entry);
        }
    }
}

std::vector<std::string> NearWords::near(const std::string &word, bool beginning,
                                         const Xapian::Database *current) const {
    const std::u32string points = code_points(word);
    const unsigned limit = typo_limit(points.size());
    if (limit == 0) return {};
    std::vector<std::pair<unsigned, const Entry *>> found;
    collect(points, word, limit, beginning, found);
    // A word added over the base may be the base's too: each is ranked once, by its fewest edits.
    std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) {
        return a.second->word != b.second->word ? a.second->word < b.second->word : a.first < b.first;
    });
    // Words read with their revision's frequencies keep them; over a base, every frequency is the
    // current one.
    const Xapian::Database *look_up = base_ ? current : nullptr;
    std::vector<std::tuple<unsigned, Xapian::doccount, const std::string *>> ranked;
    for (size_t i = 0; i < found.size(); ++i) {
        if (i > 0 && found[i].second->word == found[i - 1].second->word) continue;
        const std::string &near = found[i].second->word;
        const Xapian::doccount frequency = look_up ? look_up->get_termfreq(near) : found[i].second->frequency;
        if (frequency > 0) ranked.emplace_back(found[i].first, frequency, &near);
    }
    std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
        if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
        if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
        return *std::get<2>(a) < *std::get<2>(b);
    });
    std::vector<std::string> words;
    words.reserve(ranked.size());
    for (const auto &entry : ranked) words.push_back(*std::get<2>(entry));
    return words;
}

void note_written_words(cx_database &database, const Xapian::Document &document) {
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it)
        if (is_text_word(*it)) database.written_words.push_back(*it);
}

void read_text_words(const Xapian::Database &reader, const std::string &start, NearWords &words) {
    each_term(reader, start, [&](const std::string &term, Xapian::doccount frequency) {
        if (is_text_word(term)) words.add(term, frequency);
    });
}

std::shared_ptr<const NearWords> read_text_words(const Xapian::Database &reader) {
    auto words = std::make_shared<NearWords>();
    // The lower-case letters and the lead bytes of other scripts: no prefixed term is read.
    for (char c = 'a'; c <= 'z'; ++c) read_text_words(reader, std::string(1, c), *words);
    for (int byte = 0xC0; byte <= 0xFF; ++byte) read_text_words(reader, std::string(1, static_cast<char>(byte)), *words);
    return words;
}

std::shared_ptr<const NearWords> read_spelling_words(const Xapian::Database &reader) {
    auto words = std::make_shared<NearWords>();
    for (auto it = reader.spellings_begin(); it != reader.spellings_end(); ++it) words->add(*it, it.get_termfreq());
    return words;
}

std::shared_ptr<const NearWords> text_words(const cx_database &database, Snapshot &snapshot, const std::string &word,
                                            bool every) {
    if (snapshot.text_words) return snapshot.text_words;
    if (every) return snapshot.text_words = kept_text_words(database, snapshot);
    if (!snapshot.letter_words) snapshot.letter_words = std::make_shared<NearWords>();
    Xapian::Utf8Iterator it(word);
    if (it == Xapian::Utf8Iterator()) return snapshot.letter_words;
    std::string first;
    Xapian::Unicode::append_utf8(first, *it);
    if (snapshot.letters_read.insert(first).second) read_text_words(database.reader, first, *snapshot.letter_words);
    return snapshot.letter_words;
}

}  // namespace cx
