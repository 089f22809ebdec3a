// What typos.cpp offers the other files of the shim: the rules of typos (SPEC §2.1) and the word
// lists they are looked up in, for typo-tolerant matching (query.cpp) and spelling suggestions
// (spelling.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
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
/// are looked up in, comparing it only with the words of its first letter and a near length. A
/// revision's words may be an earlier revision's (`base`) and the words written since (`add`).
class NearWords {
  public:
    NearWords() = default;
    /// The words of `base`, and those added to these.
    explicit NearWords(std::shared_ptr<const NearWords> base) : base_(std::move(base)) {}

    void add(const std::string &word, Xapian::doccount frequency);

    /// The words a typo or two from `word` (`typo_limit`; none for a shorter word), of its first
    /// letter, nearest first, then the most frequent, then in byte order; `word` itself left out.
    /// With `beginning`, the words that begin a typo or two from it (`linkn`: `linking`, `links`).
    /// Over a base, each word's frequency is the one `current` gives, and a word it no longer
    /// holds is left out.
    std::vector<std::string> near(const std::string &word, bool beginning = false,
                                  const Xapian::Database *current = nullptr) const;

    /// The words kept, the base's among them (a word added again is counted twice).
    size_t size() const { return count_ + (base_ ? base_->size() : 0); }
    /// The words added over the base.
    size_t added() const { return count_; }
    const std::shared_ptr<const NearWords> &base() const { return base_; }
    /// Calls `body` with each word added over the base and its frequency.
    template <typename Body> void each_added(Body body) const {
        for (const auto &[first, by_length] : by_first_)
            for (const std::vector<Entry> &entries : by_length)
                for (const Entry &entry : entries) body(entry.word, entry.frequency);
    }

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
    std::shared_ptr<const NearWords> base_;

    /// Adds to `found` this list's words (the base's too) a typo or two from `points`.
    void collect(const std::u32string &points, const std::string &word, unsigned limit, bool beginning,
                 std::vector<std::pair<unsigned, const Entry *>> &found) const;
};

/// Whether `term` is a word of the items' text: unprefixed (it begins with a lower-case letter,
/// ASCII or not: every prefix is upper case) and without a digit (numbers and identifiers match
/// exactly).
bool is_text_word(const std::string &term);

/// The words of the items' text of the revision `snapshot` is of, which `database` reads, among
/// them every word of `word`'s first letter. With `every` (a handle that keeps fields across
/// revisions, `keeps_fields`), every word: for every read-only handle of this process at that
/// revision, an earlier revision's and the words this process's writer has written since, or read
/// from the index once (`kept_text_words`); a word's frequency is its earlier one until read
/// again: look up with the database as `current`. Else the words of each first letter the
/// snapshot's searches have needed, each letter read once a snapshot: a search of a process that
/// opens an index for it alone reads what its words need, not every word of the index.
std::shared_ptr<const NearWords> text_words(const cx_database &database, Snapshot &snapshot, const std::string &word,
                                            bool every);

/// Notes the words of the items' text `document` holds as written by `database`'s transaction.
void note_written_words(cx_database &database, const Xapian::Document &document);

/// Every word of the items' text the index holds, with how many items hold each.
std::shared_ptr<const NearWords> read_text_words(const Xapian::Database &reader);

/// Every word of the index's spelling table (its items' title words), with its frequency there.
std::shared_ptr<const NearWords> read_spelling_words(const Xapian::Database &reader);

/// Adds to `words` every word of the items' text that begins with `start`, with how many items
/// hold each.
void read_text_words(const Xapian::Database &reader, const std::string &start, NearWords &words);

}  // namespace cx
