// Impact tiers: each frequent term's postings of highest impact, kept beside the index, which a
// ranked search weighs first (tiered_search.cpp).
//
// BM25 weighs a term in an item as its term weight (from how many items hold it) times the
// item's impact, wdf / (k1 (b · max(length / average, min_normlen) + 1 - b) + wdf), which is below
// 1. A term held by more than `whole_list_limit` items has a tier: the ids of its `tier_size`
// postings of highest impact, and the impact θ that every posting left out stays at or under. A
// search of such terms weighs only the candidates (its terms' tiers, and the whole posting lists
// of its rarer terms) with Xapian's matcher, exactly as a full evaluation weighs them, and then
// bounds what any other item could weigh: for each term, its term weight times θ (or times 1
// without a tier), summed over the terms an item can hold in the query. When the page's last
// result outweighs that bound, no other item can enter the page, and the page is the full
// evaluation's. When it does not, the search evaluates in full.
//
// The index keeps the tiers in its metadata, so that generations, compaction and replication
// carry them as they carry the rest:
//   `cx.tiers`            "1 <average length at the build> <revision they are current at>"
//   `cx.tier-thresholds`  every tiered term with its θ, which writers read
//   `cx.tier:` + term     θ, then the tier's document ids (ascending, as deltas)
// Tiers are built by a bulk build's merge and by compaction. A writer adds each posting it stores
// whose impact passes its term's θ (at the build's average length) to the tier, and restamps the
// tiers with every commit: a commit by a writer that does not keep them (an earlier version)
// leaves them stamped at an older revision, and they are not used. A deleted or rewritten item may
// stay in a tier until the next build: a candidate that no longer matches is simply not found.
// When the average length grows, an item's impact can grow with it, by at most the ratio of the
// averages: the bound is scaled by it.
//
// A pair of common words (pairs.cpp) held by more than `pair_tier_limit` items has a tier of its own,
// for the phrase of its two words: the items holding the pair with the `tier_size` highest impacts
// for its first word and those with the `tier_size` highest for its second, each with both impacts,
// and θ for each word, which every item holding the pair that the tier leaves out stays at or under
// for that word. Every item holding a phrase of the two words holds the pair, so a phrase's page is
// proven from the pair's tier as one word's is from its own. A writer notes every item it stores
// that holds a tiered pair: it enters the tier with its impacts when either passes its θ, and
// leaves it otherwise, so that the tier's impacts are those of the items holding the pair now (an
// item deleted, or rewritten without the pair, stays a candidate that no longer matches).
//   `cx.pair-thresholds`   every pair with a tier, with its two θ
//   `cx.pair-tier:` + pair  both θ, then the tier's document ids (as deltas), each with two impacts

#include "tiers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include "bm25.hpp"
#include "schema.hpp"
#include "tiers_format.hpp"

namespace cx {

/// What a writer knows of an index's tiers: the thresholds, read once per build, and the postings
/// noted for the transaction's commit.
struct TierNotes {
    /// The `cx.tiers` record the thresholds were read with ("" when the index has none).
    std::string record;
    bool loaded = false;
    double average = 0;
    std::unordered_map<std::string, double> thresholds;
    std::unordered_map<std::string, std::vector<std::pair<Xapian::docid, double>>> noted;
    /// The pairs with a tier, with their θ for each word, and the postings noted for them.
    std::unordered_map<std::string, std::pair<double, double>> pair_thresholds;
    /// A stored item holding a tiered pair is noted whatever its impacts, with whether it passes
    /// either θ: it enters the tier, or leaves it, so that a pair's tier holds no stale impacts
    /// for an item holding the pair.
    std::unordered_map<std::string, std::vector<std::pair<PairTierPosting, bool>>> noted_pairs;
};

double impact(Xapian::termcount wdf, double length, double average) {
    return bm25::impact(wdf, bm25::normalised_length(length, average));
}

namespace {

const std::string tiers_key = "cx.tiers";
const std::string thresholds_key = "cx.tier-thresholds";
const std::string tier_prefix = "cx.tier:";
const std::string pair_thresholds_key = "cx.pair-thresholds";
const std::string pair_tier_prefix = "cx.pair-tier:";

/// The longest term a tier is kept for: its key must stay within Xapian's key limit.
constexpr size_t longest_tiered_term = 200;

/// The ranges of term names that can hold weighed terms, as [first, end) ("" for no end): words
/// and other unprefixed terms sort before the capital letters of boolean prefixes, beginnings
/// start with `XB`, stems with `Z`. A tier build skips the filters' terms between them.
const std::pair<std::string, std::string> weighed_ranges[] = {{"", "A"}, {"XB", "XC"}, {"Z", ""}};

void put_varint(std::string &out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(char(0x80 | (value & 0x7f)));
        value >>= 7;
    }
    out.push_back(char(value));
}

bool get_varint(const std::string &in, size_t &at, uint64_t &value) {
    value = 0;
    for (int shift = 0; at < in.size() && shift < 64; shift += 7) {
        const auto byte = uint8_t(in[at++]);
        value |= uint64_t(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return true;
    }
    return false;
}

std::string number_text(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}


uint8_t rounded_up(double impact) { return uint8_t(std::min(255.0, std::ceil(impact * 255))); }

/// A tier record: θ as text and a newline, then each posting: its id as a delta, its impact.
std::string encode_tier(double threshold, const std::vector<TierPosting> &postings) {
    std::string out = number_text(threshold) + '\n';
    Xapian::docid previous = 0;
    for (const TierPosting &posting : postings) {
        put_varint(out, posting.id - previous);
        out.push_back(char(posting.impact));
        previous = posting.id;
    }
    return out;
}


bool decode_tier(const std::string &record, double &threshold, std::vector<TierPosting> &postings) {
    const size_t line = record.find('\n');
    if (line == std::string::npos) return false;
    threshold = std::strtod(record.c_str(), nullptr);
    Xapian::docid id = 0;
    for (size_t at = line + 1; at < record.size();) {
        uint64_t delta;
        if (!get_varint(record, at, delta) || at >= record.size()) return false;
        id += Xapian::docid(delta);
        postings.push_back({id, uint8_t(record[at++])});
    }
    return true;
}


/// A pair's tier record: both θ as text and a newline, then each posting: its id as a delta, its
/// impacts for the first and the second word.
std::string encode_pair_tier(double first, double second, const std::vector<PairTierPosting> &postings) {
    std::string out = number_text(first) + ' ' + number_text(second) + '\n';
    Xapian::docid previous = 0;
    for (const PairTierPosting &posting : postings) {
        put_varint(out, posting.id - previous);
        out.push_back(char(posting.first));
        out.push_back(char(posting.second));
        previous = posting.id;
    }
    return out;
}

bool decode_pair_tier(const std::string &record, double &first, double &second, std::vector<PairTierPosting> &postings) {
    const size_t line = record.find('\n');
    if (line == std::string::npos) return false;
    char *end = nullptr;
    first = std::strtod(record.c_str(), &end);
    second = std::strtod(end, nullptr);
    Xapian::docid id = 0;
    for (size_t at = line + 1; at < record.size();) {
        uint64_t delta;
        if (!get_varint(record, at, delta) || at + 1 >= record.size()) return false;
        id += Xapian::docid(delta);
        postings.push_back({id, uint8_t(record[at]), uint8_t(record[at + 1])});
        at += 2;
    }
    return true;
}

/// What building the pairs' tiers reads once for all of them: every item's length, and one word's
/// wdf in every item, by document id (0 for an item lacking the word).
struct PairTierReading {
    std::vector<Xapian::termcount> lengths;
    std::vector<Xapian::termcount> wdfs;
    std::string word;

    explicit PairTierReading(const Xapian::Database &database)
        : lengths(database.get_lastdocid() + 1), wdfs(database.get_lastdocid() + 1) {
        for (auto it = database.postlist_begin(""); it != database.postlist_end(""); ++it)
            lengths[*it] = it.get_doclength();
    }

    /// Reads `word`'s wdfs, in place of the last word's.
    void read(const Xapian::Database &database, const std::string &next) {
        if (next == word) return;
        std::fill(wdfs.begin(), wdfs.end(), 0);
        for (auto it = database.postlist_begin(next); it != database.postlist_end(next); ++it) wdfs[*it] = it.get_wdf();
        word = next;
    }
};

/// Builds and records the tier of `pair` (held by more than `pair_tier_limit` items), and returns
/// its line of the thresholds' record (empty when it needs no tier). `reading` holds the wdfs of
/// the pair's more frequent word, `frequent_first` says which of the two it is; the other word's
/// are looked up in its list, so that a word most items hold is read once for all its pairs rather
/// than once a pair.
std::string build_pair_tier(Xapian::WritableDatabase &database, const std::string &pair, const std::string &other,
                            bool frequent_first, double average, const PairTierReading &reading) {
    std::vector<Xapian::docid> ids;
    std::vector<std::pair<double, double>> impacts;
    Xapian::PostingIterator looked = database.postlist_begin(other);
    const Xapian::PostingIterator looked_end = database.postlist_end(other);
    for (auto it = database.postlist_begin(pair); it != database.postlist_end(pair); ++it) {
        const Xapian::termcount frequent_wdf = reading.wdfs[*it];
        looked.skip_to(*it);
        if (looked == looked_end) break;
        if (frequent_wdf == 0 || *looked != *it) continue;
        const double length = reading.lengths[*it];
        const double frequent = impact(frequent_wdf, length, average), rarer = impact(looked.get_wdf(), length, average);
        impacts.emplace_back(frequent_first ? frequent : rarer, frequent_first ? rarer : frequent);
        ids.push_back(*it);
    }
    if (impacts.size() <= tier_size) return {};
    // θ of each word: the impact of the first posting its order leaves out; postings tied with it
    // stay out too.
    const auto threshold = [&](auto impact_of) {
        std::vector<double> sorted;
        sorted.reserve(impacts.size());
        for (const auto &both : impacts) sorted.push_back(impact_of(both));
        std::nth_element(sorted.begin(), sorted.begin() + tier_size, sorted.end(), std::greater<double>());
        return sorted[tier_size];
    };
    const double first_threshold = threshold([](const auto &both) { return both.first; });
    const double second_threshold = threshold([](const auto &both) { return both.second; });
    std::vector<PairTierPosting> tier;
    for (size_t i = 0; i < ids.size(); ++i) {
        const auto &[first_impact, second_impact] = impacts[i];
        if (first_impact > first_threshold || second_impact > second_threshold)
            tier.push_back({ids[i], rounded_up(first_impact), rounded_up(second_impact)});
    }
    database.set_metadata(pair_tier_prefix + pair, encode_pair_tier(first_threshold, second_threshold, tier));
    std::string line;
    put_varint(line, pair.size());
    return line + pair + number_text(first_threshold) + ' ' + number_text(second_threshold) + '\n';
}

/// Builds the tier of every pair more than `pair_tier_limit` items hold, grouped by the more
/// frequent word of each, and records them with their thresholds.
void build_pair_tiers(Xapian::WritableDatabase &database, double average) {
    struct Tiered {
        std::string frequent, pair, other;
        bool frequent_first;
    };
    std::vector<Tiered> pairs;
    each_term(database, prefix::pair, [&](const std::string &term, Xapian::doccount frequency) {
        std::string first, second;
        if (frequency <= pair_tier_limit || !pair_words(term, first, second)) return;
        const bool frequent_first = database.get_termfreq(first) >= database.get_termfreq(second);
        pairs.push_back(frequent_first ? Tiered{first, term, second, true} : Tiered{second, term, first, false});
    });
    // The thresholds' record lists the pairs in term order, whatever order they are built in.
    std::map<std::string, std::string> lines;
    if (!pairs.empty()) {
        std::stable_sort(pairs.begin(), pairs.end(), [](const Tiered &a, const Tiered &b) { return a.frequent < b.frequent; });
        PairTierReading reading(database);
        for (const Tiered &tiered : pairs) {
            reading.read(database, tiered.frequent);
            std::string line = build_pair_tier(database, tiered.pair, tiered.other, tiered.frequent_first, average, reading);
            if (!line.empty()) lines.emplace(tiered.pair, std::move(line));
        }
    }
    std::string thresholds;
    for (const auto &entry : lines) thresholds += entry.second;
    database.set_metadata(pair_thresholds_key, thresholds);
}

std::optional<TiersRecord> parse_record(const std::string &text) {
    TiersRecord record;
    unsigned long long revision = 0;
    if (std::sscanf(text.c_str(), "1 %lf %llu", &record.average, &revision) != 2 || !(record.average > 0))
        return std::nullopt;
    record.current = Xapian::rev(revision);
    return record;
}

std::string make_record(double average, Xapian::rev current) {
    return "1 " + number_text(average) + " " + std::to_string(current);
}


TierNotes &notes(cx_database &database) {
    if (!database.tier_notes) database.tier_notes = std::make_shared<TierNotes>();
    return *database.tier_notes;
}

/// Calls `entry(term, values)` for each entry of a thresholds list (`cx.tier-thresholds`,
/// `cx.pair-thresholds`): its term, and the text of its θ (two of them for a pair) up to the line's end.
template <typename Entry> void for_each_threshold(const std::string &list, Entry entry) {
    for (size_t at = 0; at < list.size();) {
        uint64_t length;
        if (!get_varint(list, at, length) || at + length > list.size()) return;
        std::string term = list.substr(at, length);
        at += length;
        const size_t line = list.find('\n', at);
        if (line == std::string::npos) return;
        entry(std::move(term), list.c_str() + at);
        at = line + 1;
    }
}

/// Reads the thresholds the first time a writer needs them after a build.
void load_thresholds(cx_database &database, TierNotes &notes) {
    const std::string record = database.writer.get_metadata(tiers_key);
    if (notes.loaded && notes.record == record) return;
    notes.loaded = true;
    notes.record = record;
    notes.thresholds.clear();
    notes.noted.clear();
    notes.pair_thresholds.clear();
    notes.noted_pairs.clear();
    const std::optional<TiersRecord> parsed = parse_record(record);
    notes.average = parsed ? parsed->average : 0;
    if (!parsed) return;
    for_each_threshold(database.writer.get_metadata(thresholds_key), [&](std::string term, const char *values) {
        notes.thresholds.emplace(std::move(term), std::strtod(values, nullptr));
    });
    for_each_threshold(database.writer.get_metadata(pair_thresholds_key), [&](std::string pair, const char *values) {
        char *end = nullptr;
        const double first = std::strtod(values, &end);
        notes.pair_thresholds.emplace(std::move(pair), std::make_pair(first, std::strtod(end, nullptr)));
    });
}

}  // namespace

/// The tiers of `reader`'s revision, when they are current at it.
std::optional<TiersRecord> current_tiers(const Xapian::Database &reader) {
    const std::optional<TiersRecord> record = parse_record(reader.get_metadata(tiers_key));
    if (!record || record->current != reader.get_revision()) return std::nullopt;
    return record;
}


bool read_tier(const Xapian::Database &reader, const std::string &term, double &threshold,
               std::vector<TierPosting> &postings) {
    return decode_tier(reader.get_metadata(tier_prefix + term), threshold, postings);
}

bool read_pair_tier(const Xapian::Database &reader, const std::string &pair, double &first_threshold,
                    double &second_threshold, std::vector<PairTierPosting> &postings) {
    return decode_pair_tier(reader.get_metadata(pair_tier_prefix + pair), first_threshold, second_threshold, postings);
}

bool pair_words(const std::string &pair, std::string &first, std::string &second) {
    if (pair.compare(0, prefix::pair.size(), prefix::pair) != 0) return false;
    const size_t space = pair.find(' ', prefix::pair.size());
    if (space == std::string::npos) return false;
    first = pair.substr(prefix::pair.size(), space - prefix::pair.size());
    second = pair.substr(space + 1);
    return !first.empty() && !second.empty();
}

bool is_weighed_term(const std::string &term) {
    if (term.empty() || term.size() > longest_tiered_term) return false;
    if (term[0] < 'A' || term[0] > 'Z') return true;
    // A stem of the shared space (`Z` and a word), not of a prefixed field (`ZS`).
    if (term[0] == 'Z') return term.size() < 2 || term[1] < 'A' || term[1] > 'Z';
    return term.compare(0, 2, "XB") == 0;
}


void build_tiers(Xapian::WritableDatabase &database) {
    std::vector<std::string> old;
    for (auto it = database.metadata_keys_begin(tier_prefix); it != database.metadata_keys_end(tier_prefix); ++it)
        old.push_back(*it);
    for (auto it = database.metadata_keys_begin(pair_tier_prefix); it != database.metadata_keys_end(pair_tier_prefix);
         ++it)
        old.push_back(*it);
    for (const std::string &key : old) database.set_metadata(key, "");
    const double average = database.get_avlength();
    if (database.get_doccount() == 0 || !(average > 0)) {
        database.set_metadata(tiers_key, "");
        database.set_metadata(thresholds_key, "");
        database.set_metadata(pair_thresholds_key, "");
        return;
    }
    std::string thresholds;
    std::vector<std::pair<double, Xapian::docid>> postings;
    for (const auto &[first, end] : weighed_ranges) {
        auto it = database.allterms_begin();
        it.skip_to(first);
        for (; it != database.allterms_end(); ++it) {
            const std::string term = *it;
            if (!end.empty() && term >= end) break;
            if (it.get_termfreq() <= whole_list_limit || !is_weighed_term(term)) continue;
            postings.clear();
            for (auto p = database.postlist_begin(term); p != database.postlist_end(term); ++p)
                postings.emplace_back(impact(p.get_wdf(), p.get_doclength(), average), *p);
            // θ: the impact of the first posting left out; postings tied with it stay out too.
            auto cut = postings.begin() + tier_size;
            std::nth_element(postings.begin(), cut, postings.end(),
                             [](const auto &a, const auto &b) { return a.first > b.first; });
            const double threshold = cut->first;
            std::vector<TierPosting> tier;
            for (const auto &[weight, id] : postings)
                if (weight > threshold) tier.push_back({id, rounded_up(weight)});
            std::sort(tier.begin(), tier.end());
            database.set_metadata(tier_prefix + term, encode_tier(threshold, tier));
            put_varint(thresholds, term.size());
            thresholds += term + number_text(threshold) + '\n';
        }
    }
    database.set_metadata(thresholds_key, thresholds);
    build_pair_tiers(database, average);
    database.set_metadata(tiers_key, make_record(average, database.get_revision() + 1));
}

void restamp_tiers(Xapian::WritableDatabase &database) {
    if (const std::optional<TiersRecord> record = parse_record(database.get_metadata(tiers_key)))
        database.set_metadata(tiers_key, make_record(record->average, database.get_revision() + 1));
}

void note_tiers(cx_database &database, Xapian::docid id, const Xapian::Document &document) {
    TierNotes &tiers = notes(database);
    load_thresholds(database, tiers);
    if (tiers.thresholds.empty() && tiers.pair_thresholds.empty()) return;
    // One pass over the terms: the item's length is their wdfs' sum, and its tiered terms are few.
    double length = 0;
    std::vector<std::pair<const std::pair<const std::string, double> *, Xapian::termcount>> tiered;
    std::vector<const std::pair<const std::string, std::pair<double, double>> *> pairs;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        length += it.get_wdf();
        const auto found = tiers.thresholds.find(*it);
        if (found != tiers.thresholds.end()) tiered.emplace_back(&*found, it.get_wdf());
        if (tiers.pair_thresholds.empty() || (*it).compare(0, prefix::pair.size(), prefix::pair) != 0) continue;
        const auto pair = tiers.pair_thresholds.find(*it);
        if (pair != tiers.pair_thresholds.end()) pairs.push_back(&*pair);
    }
    for (const auto &[term, wdf] : tiered) {
        const double weight = impact(wdf, length, tiers.average);
        if (weight > term->second) tiers.noted[term->first].emplace_back(id, weight);
    }
    const auto wdf_of = [&](const std::string &word) -> Xapian::termcount {
        Xapian::TermIterator it = document.termlist_begin();
        it.skip_to(word);
        return it != document.termlist_end() && *it == word ? it.get_wdf() : 0;
    };
    for (const auto *pair : pairs) {
        std::string first, second;
        if (!pair_words(pair->first, first, second)) continue;
        const double first_impact = impact(wdf_of(first), length, tiers.average);
        const double second_impact = impact(wdf_of(second), length, tiers.average);
        const bool passes = first_impact > pair->second.first || second_impact > pair->second.second;
        tiers.noted_pairs[pair->first].push_back({{id, rounded_up(first_impact), rounded_up(second_impact)}, passes});
    }
}

namespace {

/// `tier`, ascending by item, with `changes` made to it in the order they were noted: `id_of` a
/// change is its item, `posting_of` it the item's new posting, or nothing to take the item out; an
/// item's last change counts. One pass over both, sorted: a commit notes a few items, and a tier
/// holds a thousand or more.
template <typename Posting, typename Change, typename IdOf, typename PostingOf>
std::vector<Posting> merged(const std::vector<Posting> &tier, const std::vector<Change> &changes, IdOf id_of,
                            PostingOf posting_of) {
    // The changes by item, each item's in the order noted.
    std::vector<std::pair<Xapian::docid, size_t>> order;
    order.reserve(changes.size());
    for (size_t i = 0; i < changes.size(); ++i) order.emplace_back(id_of(changes[i]), i);
    std::sort(order.begin(), order.end());
    std::vector<Posting> out;
    out.reserve(tier.size() + changes.size());
    size_t kept = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const Xapian::docid id = order[i].first;
        if (i + 1 < order.size() && order[i + 1].first == id) continue;
        while (kept < tier.size() && tier[kept].id < id) out.push_back(tier[kept++]);
        if (kept < tier.size() && tier[kept].id == id) ++kept;
        if (const std::optional<Posting> posting = posting_of(changes[order[i].second])) out.push_back(*posting);
    }
    out.insert(out.end(), tier.begin() + long(kept), tier.end());
    return out;
}

}  // namespace

void flush_tiers(cx_database &database) {
    Xapian::WritableDatabase &writer = database.writer;
    const std::optional<TiersRecord> record = parse_record(writer.get_metadata(tiers_key));
    if (!record) return;
    if (database.tier_notes) {
        for (auto &[term, noted] : database.tier_notes->noted) {
            double threshold;
            std::vector<TierPosting> tier;
            if (!decode_tier(writer.get_metadata(tier_prefix + term), threshold, tier)) continue;
            // A rewritten item's new impact replaces the one it entered with.
            tier = merged(
                tier, noted, [](const std::pair<Xapian::docid, double> &change) { return change.first; },
                [](const std::pair<Xapian::docid, double> &change) {
                    return std::optional<TierPosting>(TierPosting{change.first, rounded_up(change.second)});
                });
            writer.set_metadata(tier_prefix + term, encode_tier(threshold, tier));
        }
        database.tier_notes->noted.clear();
        for (auto &[pair, noted] : database.tier_notes->noted_pairs) {
            double first, second;
            std::vector<PairTierPosting> tier;
            if (!decode_pair_tier(writer.get_metadata(pair_tier_prefix + pair), first, second, tier)) continue;
            // A rewritten item's new impacts replace those it entered with, or take it out.
            tier = merged(
                tier, noted, [](const std::pair<PairTierPosting, bool> &change) { return change.first.id; },
                [](const std::pair<PairTierPosting, bool> &change) {
                    return change.second ? std::optional<PairTierPosting>(change.first) : std::nullopt;
                });
            writer.set_metadata(pair_tier_prefix + pair, encode_pair_tier(first, second, tier));
        }
        database.tier_notes->noted_pairs.clear();
    }
    writer.set_metadata(tiers_key, make_record(record->average, writer.get_revision() + 1));
}

void forget_tiers(cx_database &database) {
    if (!database.tier_notes) return;
    database.tier_notes->noted.clear();
    database.tier_notes->noted_pairs.clear();
}

}  // namespace cx
