// Pairs of common words, for phrases (Lucene's *common grams*).
//
// A phrase of two words many items hold costs what their AND costs: Xapian weighs every item
// holding both (reading its length) before it looks up positions for those that can still enter
// the page. An index therefore chooses its common words once, and gives each item a boolean term
// for each two of them side by side (`XW` first word, a space, second word): no position, wdf 0, so
// no item's length or weight changes. A phrase of common words is then filtered by its pairs, and
// Xapian reads only the items holding them; two common words side by side are exactly their pair,
// so that phrase is their AND filtered by it, with no position read.
//
// The choice is recorded in the metadata (`cx.common-words`: "1", then each word on a line of its
// own) and never changes, so that every item of the index has its pairs of the same words:
//   - a bulk build into an index of fewer than `common_words_choice` items that has not chosen
//     chooses from the index's words and its first piece's (bulk.cpp), and gives the items already
//     there their pairs in the new generation;
//   - a transaction that leaves such an index with `common_words_choice` items or more chooses
//     from the index's words as it commits, and gives every item its pairs (database.cpp);
//   - compaction, merges and replication carry the record with the rest of the metadata.
// An index that has not chosen searches phrases by positions alone, as before.

#include "pairs.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "schema.hpp"

namespace cx {

namespace {

const std::string common_words_key = "cx.common-words";

/// The share of the items a word is held by, at least, to be common.
constexpr double common_share = 0.02;

/// The most common words an index chooses: 2 % of the words side by side are pairs of the 128 most
/// frequent words of a Zipf vocabulary of 50,000 (about 5 % more postings).
constexpr size_t most_common_words = 128;

}  // namespace

std::string pair_term(const std::string &first, const std::string &second) {
    return prefix::pair + first + ' ' + second;
}

std::shared_ptr<const CommonWords> recorded_common_words(const Xapian::Database &database) {
    const std::string record = database.get_metadata(common_words_key);
    if (record.compare(0, 1, "1") != 0) return nullptr;
    auto common = std::make_shared<CommonWords>();
    for (size_t at = record.find('\n'); at != std::string::npos;) {
        const size_t end = record.find('\n', at + 1);
        common->words.insert(record.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1));
        at = end;
    }
    return common;
}

void record_common_words(Xapian::WritableDatabase &writer, const CommonWords &common) {
    std::vector<std::string> sorted(common.words.begin(), common.words.end());
    std::sort(sorted.begin(), sorted.end());
    std::string record = "1";
    for (const std::string &word : sorted) record += '\n' + word;
    if (writer.get_metadata(common_words_key) != record) writer.set_metadata(common_words_key, record);
}

CommonWords choose_common_words(const std::vector<std::pair<std::string, Xapian::doccount>> &frequencies,
                                Xapian::doccount items) {
    std::vector<std::pair<Xapian::doccount, std::string>> common;
    const double least = std::max(2.0, common_share * items);
    for (const auto &[word, frequency] : frequencies)
        if (frequency >= least && pair_term(word, word).size() <= term_limit) common.emplace_back(frequency, word);
    const size_t kept = std::min(common.size(), most_common_words);
    std::partial_sort(common.begin(), common.begin() + kept, common.end(),
                      [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    CommonWords chosen;
    for (size_t i = 0; i < kept; ++i) chosen.words.insert(common[i].second);
    return chosen;
}

std::vector<std::pair<std::string, Xapian::doccount>> word_frequencies(const Xapian::Database &database) {
    std::vector<std::pair<std::string, Xapian::doccount>> frequencies;
    for (auto it = database.allterms_begin(); it != database.allterms_end(); ++it) {
        const std::string term = *it;
        if (is_shared_word(term)) frequencies.emplace_back(term, it.get_termfreq());
    }
    return frequencies;
}

void add_pairs(Xapian::Document &document, const CommonWords &common) {
    if (common.words.empty()) return;
    // The common words at each position (a position may hold more than one term: Chinese
    // characters and their pairs).
    std::vector<std::pair<Xapian::termpos, const std::string *>> at;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        const auto found = common.words.find(*it);
        if (found == common.words.end()) continue;
        for (auto position = it.positionlist_begin(); position != it.positionlist_end(); ++position)
            at.emplace_back(*position, &*found);
    }
    std::sort(at.begin(), at.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (size_t i = 0; i < at.size(); ++i) {
        for (size_t j = i + 1; j < at.size() && at[j].first <= at[i].first + 1; ++j) {
            if (at[j].first == at[i].first + 1) document.add_boolean_term(pair_term(*at[i].second, *at[j].second));
        }
    }
}

void add_pairs_to_items(Xapian::WritableDatabase &writer, const CommonWords &common, Xapian::docid last) {
    for (auto it = writer.postlist_begin(""); it != writer.postlist_end("") && (last == 0 || *it <= last); ++it) {
        Xapian::Document document = writer.get_document(*it);
        const Xapian::termcount before = document.termlist_count();
        add_pairs(document, common);
        if (document.termlist_count() != before) writer.replace_document(*it, document);
    }
}

Xapian::Query with_pairs(const Xapian::Query &phrase, const CommonWords &common) {
    using Query = Xapian::Query;
    if (phrase.get_type() != Query::OP_PHRASE || common.words.empty()) return phrase;
    std::vector<Query> words;
    for (size_t i = 0; i < phrase.get_num_subqueries(); ++i) {
        const Query word = phrase.get_subquery(i);
        if (word.get_type() != Query::LEAF_TERM) return phrase;
        words.push_back(word);
    }
    std::vector<Query> pairs;
    for (size_t i = 0; i + 1 < words.size(); ++i) {
        const std::string first = *words[i].get_terms_begin(), second = *words[i + 1].get_terms_begin();
        if (common.words.count(first) > 0 && common.words.count(second) > 0) pairs.emplace_back(pair_term(first, second));
    }
    if (pairs.empty()) return phrase;
    const Query filter = pairs.size() == 1 ? pairs.front() : Query(Query::OP_AND, pairs.begin(), pairs.end());
    // Two words side by side are exactly their pair: an AND weighs as their phrase does.
    const Query matched = words.size() == 2 ? Query(Query::OP_AND, words.begin(), words.end()) : phrase;
    return Query(Query::OP_FILTER, matched, filter);
}

}  // namespace cx
