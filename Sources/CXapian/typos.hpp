// What typos.cpp offers the other files of the shim: the rules of typos (SPEC §2.1) and the word
// lists they are looked up in, for typo-tolerant matching (query.cpp) and spelling suggestions
// (spelling.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
#include <xapian.h>

struct cx_database;

namespace cx {

struct Snapshot;

/// The most typos a word of `letters` letters (code points) may hold: none under 5, one from 5 to
/// 8, two from 9. A typo is a letter added, missing or changed, or two neighbours swapped, never
/// in the first letter.
unsigned typo_limit(size_t letters);

/// Words kept by first letter and length, each with how many items hold it: what a word's typos
/// are looked up in, comparing it only with the words of its first letter and a near length.
class NearWords {
  public:
    void add(const std::string &word, Xapian::doccount frequency);

    /// The words a typo or two from `word` (`typo_limit`; none for a shorter word), of its first
    /// letter, nearest first, then the most frequent, then in byte order; `word` itself left out.
    /// With `beginning`, the words that begin a typo or two from it (`linkn`: `linking`, `links`).
    std::vector<std::string> near(const std::string &word, bool beginning = false) const;

    size_t size() const { return count_; }

  private:
    struct Entry {
        std::string word;
        std::u32string points;
        Xapian::doccount frequency;
        /// The word's letters, each as bit `letter % 64` (`letters_of`).
        uint64_t letters;
    };
    std::unordered_map<char32_t, std::vector<std::vector<Entry>>> by_first_;
    size_t count_ = 0;
};

/// The words of the items' text (the unprefixed terms that begin with a letter and hold no digit:
/// numbers and identifiers match exactly) of the revision `snapshot` is of, which `database`
/// reads: read once a revision, on the first search that needs them, for every read-only handle
/// of this process (`kept_text_words`).
std::shared_ptr<const NearWords> text_words(const cx_database &database, Snapshot &snapshot);

}  // namespace cx
