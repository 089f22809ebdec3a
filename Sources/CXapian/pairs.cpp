// Pairs of common words, for phrases (Lucene's *common grams*).
//
// A phrase of two words many items hold costs what their AND costs: Xapian reads every item
// holding both (and the posting list of a word most items hold nearly whole) before it looks up
// positions, and counts the phrase's matches by positions too. An index therefore chooses its common
// words once, with the number of items holding each, and gives each item a boolean term for each two
// of them side by side that are *paired* (`XW` first word, a space, second word): no position, wdf
// 0, so no item's length or weight changes. Two words are paired when, were they independent, at
// least `least_pair_share` of the items would hold both: the phrases whose AND is large, a word
// most items hold beside a middling one as much as two frequent words. A phrase is then filtered by
// its pairs, and Xapian reads only the items holding them; two paired words side by side are exactly
// their pair, so that phrase is their AND filtered by it, with no position read.
//
// The choice is recorded in the metadata (`cx.common-words`: "2", the number of items it was made
// from, then each word and the items holding it, a line each) and never changes, so that every item
// of the index has the pairs of the same words:
//   - a bulk build into an index of fewer than `common_words_choice` items that has not chosen
//     chooses from the index's words and its first piece's (bulk.cpp), and gives the items already
//     there their pairs in the new generation;
//   - a transaction that leaves such an index with `common_words_choice` items or more chooses
//     from the index's words as it commits, and gives every item its pairs (database.cpp);
//   - compaction, merges and replication carry the record with the rest of the metadata.
// An index that has not chosen searches phrases by positions alone.

#include "pairs.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "schema.hpp"

namespace cx {

namespace {

const std::string common_words_key = "cx.common-words";

/// The most common words an index chooses (at 1,000,000 items of the benchmark's corpus, a Zipf
/// vocabulary of 50,000 words, about 1,360 can be paired).
constexpr size_t most_common_words = 4096;

}  // namespace

std::string pair_term(const std::string &first, const std::string &second) {
    return prefix::pair + first + ' ' + second;
}

bool CommonWords::paired(Xapian::doccount first, Xapian::doccount second) const {
    return double(first) * double(second) >= least_pair_share * items * items;
}

bool CommonWords::paired(const std::string &first, const std::string &second) const {
    const auto a = frequencies.find(first);
    if (a == frequencies.end()) return false;
    const auto b = frequencies.find(second);
    return b != frequencies.end() && paired(a->second, b->second);
}

std::shared_ptr<const CommonWords> recorded_common_words(const Xapian::Database &database) {
    const std::string record = database.get_metadata(common_words_key);
    if (record.compare(0, 2, "2\n") != 0) return nullptr;
    auto common = std::make_shared<CommonWords>();
    size_t at = 2, end = record.find('\n', at);
    common->items = Xapian::doccount(std::strtoul(record.substr(at, end - at).c_str(), nullptr, 10));
    // A record that names no items pairs nothing: phrases are read by positions, not filtered by
    // pairs no item holds.
    if (common->items == 0) return nullptr;
    while (end != std::string::npos) {
        at = end + 1;
        end = record.find('\n', at);
        const std::string line = record.substr(at, end == std::string::npos ? std::string::npos : end - at);
        const size_t space = line.rfind(' ');
        if (space == std::string::npos) continue;
        common->frequencies.emplace(line.substr(0, space),
                                    Xapian::doccount(std::strtoul(line.c_str() + space + 1, nullptr, 10)));
    }
    return common;
}

void record_common_words(Xapian::WritableDatabase &writer, const CommonWords &common) {
    std::vector<std::pair<std::string, Xapian::doccount>> sorted(common.frequencies.begin(), common.frequencies.end());
    std::sort(sorted.begin(), sorted.end());
    std::string record = "2\n" + std::to_string(common.items);
    for (const auto &[word, frequency] : sorted) record += '\n' + word + ' ' + std::to_string(frequency);
    if (writer.get_metadata(common_words_key) != record) writer.set_metadata(common_words_key, record);
}

CommonWords choose_common_words(const std::vector<std::pair<std::string, Xapian::doccount>> &frequencies,
                                Xapian::doccount items) {
    Xapian::doccount greatest = 0;
    for (const auto &entry : frequencies) greatest = std::max(greatest, entry.second);
    CommonWords chosen;
    chosen.items = items;
    // A word is paired with nothing unless it would be with the most frequent word.
    std::vector<std::pair<Xapian::doccount, std::string>> common;
    for (const auto &[word, frequency] : frequencies)
        if (frequency >= 2 && double(frequency) * double(greatest) >= least_pair_share * items * items &&
            pair_term(word, word).size() <= term_limit)
            common.emplace_back(frequency, word);
    const size_t kept = std::min(common.size(), most_common_words);
    std::partial_sort(common.begin(), common.begin() + long(kept), common.end(),
                      [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    for (size_t i = 0; i < kept; ++i) chosen.frequencies.emplace(common[i].second, common[i].first);
    return chosen;
}

std::vector<std::pair<std::string, Xapian::doccount>> word_frequencies(const Xapian::Database &database) {
    std::vector<std::pair<std::string, Xapian::doccount>> frequencies;
    each_term(database, std::string(), [&](const std::string &term, Xapian::doccount frequency) {
        if (is_shared_word(term)) frequencies.emplace_back(term, frequency);
    });
    return frequencies;
}

void add_pairs(Xapian::Document &document, const CommonWords &common) {
    if (common.frequencies.empty()) return;
    // The common words at each position (a position may hold more than one term: Chinese
    // characters and their pairs).
    std::vector<std::pair<Xapian::termpos, const std::pair<const std::string, Xapian::doccount> *>> at;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        const auto found = common.frequencies.find(*it);
        if (found == common.frequencies.end()) continue;
        for (auto position = it.positionlist_begin(); position != it.positionlist_end(); ++position)
            at.emplace_back(*position, &*found);
    }
    std::sort(at.begin(), at.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (size_t i = 0; i < at.size(); ++i) {
        for (size_t j = i + 1; j < at.size() && at[j].first <= at[i].first + 1; ++j) {
            const auto &first = *at[i].second, &second = *at[j].second;
            if (at[j].first == at[i].first + 1 && common.paired(first.second, second.second))
                document.add_boolean_term(pair_term(first.first, second.first));
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
    if (phrase.get_type() != Query::OP_PHRASE || common.frequencies.empty()) return phrase;
    std::vector<Query> words;
    for (size_t i = 0; i < phrase.get_num_subqueries(); ++i) {
        const Query word = phrase.get_subquery(i);
        if (word.get_type() != Query::LEAF_TERM) return phrase;
        words.push_back(word);
    }
    std::vector<Query> pairs;
    for (size_t i = 0; i + 1 < words.size(); ++i) {
        const std::string first = *words[i].get_terms_begin(), second = *words[i + 1].get_terms_begin();
        if (common.paired(first, second)) pairs.emplace_back(pair_term(first, second));
    }
    if (pairs.empty()) return phrase;
    const Query filter = pairs.size() == 1 ? pairs.front() : Query(Query::OP_AND, pairs.begin(), pairs.end());
    // Two words side by side are exactly their pair: an AND weighs as their phrase does.
    const Query matched = words.size() == 2 ? Query(Query::OP_AND, words.begin(), words.end()) : phrase;
    return Query(Query::OP_FILTER, matched, filter);
}

}  // namespace cx
