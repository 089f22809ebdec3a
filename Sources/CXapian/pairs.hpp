// What pairs.cpp offers the other files of the shim: an index's common words, chosen once, and a
// boolean term for each two of them side by side in an item that are frequent enough together to
// be paired, which a phrase of them is filtered by.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
#include <xapian.h>

namespace cx {

/// The words an index chose as common (`choose_common_words`), each with the number of items that
/// held it when the index chose, of `items`: every item it holds has a pair term (`pair_term`) for
/// each two of them at positions side by side that are `paired`.
struct CommonWords {
    Xapian::doccount items = 0;
    std::unordered_map<std::string, Xapian::doccount> frequencies;

    /// Whether `first` and `second` side by side have a pair term: whether, were the items holding
    /// each independent of the other, at least `least_pair_share` of the items would hold both,
    /// as the index's frequencies were when it chose. Their phrase costs that AND without the pair.
    bool paired(const std::string &first, const std::string &second) const;
    /// The same for two words held by `first` and `second` items as the index chose.
    bool paired(Xapian::doccount first, Xapian::doccount second) const;
};

/// The share of an index's items two words side by side are expected to be held by together,
/// at least, to have a pair.
constexpr double least_pair_share = 0.005;

/// An index chooses its common words once it holds this many items.
constexpr Xapian::doccount common_words_choice = 500;

/// The term of two words side by side, `first` then `second` (boolean: it weighs nothing and adds
/// nothing to the item's length).
std::string pair_term(const std::string &first, const std::string &second);

/// The common words `database` records, or null when it has chosen none.
std::shared_ptr<const CommonWords> recorded_common_words(const Xapian::Database &database);

/// Records `common` as `writer`'s common words.
void record_common_words(Xapian::WritableDatabase &writer, const CommonWords &common);

/// Chooses the common words of items whose words' document frequencies `frequencies` gives, out of
/// `items`: the words that can be paired (with the most frequent word, at least), at most the
/// `most_common_words` most frequent.
CommonWords choose_common_words(const std::vector<std::pair<std::string, Xapian::doccount>> &frequencies,
                                Xapian::doccount items);

/// The words of `database` (its unprefixed terms) with their document frequencies.
std::vector<std::pair<std::string, Xapian::doccount>> word_frequencies(const Xapian::Database &database);

/// Adds to `document` the pair term of every two paired words at positions side by side. Adding
/// them again adds nothing.
void add_pairs(Xapian::Document &document, const CommonWords &common);

/// Gives every item of `writer` up to `last` (every item, for 0) its pairs.
void add_pairs_to_items(Xapian::WritableDatabase &writer, const CommonWords &common, Xapian::docid last = 0);

/// `phrase` (Xapian's OP_PHRASE of terms, as the query parser makes it) filtered by the pair terms
/// of its paired words side by side, so that the matcher reads only the items holding them; for
/// two words that are a pair, their AND filtered by it, with no position read. Weighs as the
/// phrase does. Any other query is returned as it is.
Xapian::Query with_pairs(const Xapian::Query &phrase, const CommonWords &common);

}  // namespace cx
