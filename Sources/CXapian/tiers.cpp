// Tiered search: the few items that repeat a common word are read before the many that have it
// once.
//
// Scores use BM25 without length normalisation, so what a word adds to an item's score grows
// with its within-item frequency alone, and every item that has the word once in a field gets the
// same. Xapian 1.4 still reads every posting of a common word to rank it: at 1,000,000 items the
// commonest words' lists take 10–14 ms. Each item also holds a repeated term for every word (and
// word beginning) it has more than once in a field, and another for more than twice (format 4,
// `add_repeated_terms`): a few percent of a common word's items, and fewer. A search first matches
// only the items of its words' terms repeated more than twice, then more than once; when the last
// item of its page scores more than any other item can, that page is the one a whole search gives
// (search.cpp), and otherwise the search runs whole.

#include <cmath>
#include <map>
#include <set>

#include "internal.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;

/// Collects the terms whose weight a match of `query` adds up, once for each place they are
/// weighed. False when a part's weight cannot be bounded by its terms': the empty term (which
/// weighs by item length), a synonym (weighed as one term), a wildcard (expanded while matching),
/// a posting source, or a scaled part other than a filter's. False for a phrase too: Xapian 1.4
/// moves a phrase to its next match by checking the positions of every item on the way, inside a
/// filter or not, so that a filtered phrase search reads as much as a whole one (17 ms against 14
/// for "stun brond" at 1,000,000 items).
bool weighted_terms(const Query &query, std::vector<std::string> &terms) {
    switch (query.get_type()) {
        case Query::LEAF_TERM: {
            const std::string term = *query.get_terms_begin();
            if (term.empty()) return false;
            terms.push_back(term);
            return true;
        }
        case Query::LEAF_MATCH_NOTHING:
        case Query::OP_VALUE_RANGE:
        case Query::OP_VALUE_GE:
        case Query::OP_VALUE_LE:
            return true;  // no weight
        case Query::OP_SCALE_WEIGHT:
            // The query builder scales only filters, by 0; Xapian has no accessor for the factor.
            return query.get_description().rfind("Query(0 * ", 0) == 0;
        case Query::OP_AND_NOT:
        case Query::OP_FILTER:
            return weighted_terms(query.get_subquery(0), terms);  // the rest only select
        case Query::OP_OR:
        case Query::OP_AND:
        case Query::OP_XOR:
        case Query::OP_AND_MAYBE:
        case Query::OP_ELITE_SET:
        case Query::OP_MAX:
            for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
                if (!weighted_terms(query.get_subquery(i), terms)) return false;
            }
            return true;
        default:
            return false;
    }
}

/// How many items have `term`, looked up once for each term in `frequencies`.
Xapian::doccount frequency_of(const Xapian::Database &reader, std::map<std::string, Xapian::doccount> &frequencies,
                              const std::string &term) {
    auto [known, added] = frequencies.emplace(term, 0);
    if (added) known->second = reader.get_termfreq(term);
    return known->second;
}

/// About how many postings a whole search of `query` reads: every posting of an OR, the fewest of
/// an AND's parts (the matcher leads by them and skips through the rest).
uint64_t postings_read(const Xapian::Database &reader, std::map<std::string, Xapian::doccount> &frequencies,
                       const Query &query) {
    switch (query.get_type()) {
        case Query::LEAF_TERM:
            return frequency_of(reader, frequencies, *query.get_terms_begin());
        case Query::OP_AND:
        case Query::OP_FILTER: {
            uint64_t fewest = UINT64_MAX;
            for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
                fewest = std::min(fewest, postings_read(reader, frequencies, query.get_subquery(i)));
            }
            return fewest == UINT64_MAX ? 0 : fewest;
        }
        case Query::OP_AND_NOT:
        case Query::OP_AND_MAYBE:
        case Query::OP_SCALE_WEIGHT:
            return postings_read(reader, frequencies, query.get_subquery(0));
        default: {
            uint64_t sum = 0;
            for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
                sum += postings_read(reader, frequencies, query.get_subquery(i));
            }
            return sum;
        }
    }
}

}  // namespace

/// BM25 without length normalisation (b = 0; k1 = 1, as Xapian's default). Xapian reads a
/// candidate's length from a list of every document's, and advancing through it costs more than
/// scoring: at 1,000,000 items it was most of a common word's query time. A document's length
/// here is every field at once, so normalising by it ranked a title match lower for a longer
/// description; fields are weighted by their own terms and within-document frequencies instead.
Xapian::BM25Weight weighting() { return Xapian::BM25Weight(1, 0, 1, 0, 0.5); }

double term_weight(double items, double frequency, double wdf) {
    // BM25's term weight (Xapian 1.4's, without relevance data) times the within-item factor
    // (k1 + 1) wdf / (k1 + wdf), whose limit is 2.
    double ratio = (items - frequency + 0.5) / (frequency + 0.5);
    if (ratio <= 2.0) ratio = ratio * 0.5 + 1.0;
    return std::log(ratio) * (wdf < 0 ? 2.0 : 2.0 * wdf / (1.0 + wdf));
}

std::optional<TierTerms> tier_terms(const Xapian::Database &reader, const Query &query, uint64_t least_postings) {
    std::vector<std::string> terms;
    if (!weighted_terms(query, terms)) return std::nullopt;
    const double items = reader.get_doccount();
    TierTerms found;
    std::map<std::string, Xapian::doccount> frequencies;
    for (const std::string &term : terms) {
        const Xapian::doccount frequency = frequency_of(reader, frequencies, term);
        if (frequency == 0) continue;  // weighs nothing anywhere
        const Xapian::termcount one = one_occurrence_wdf(term);
        if (one == 0) return std::nullopt;  // not a free-text term: no repeated term
        found.terms.push_back({term, frequency, one, term_weight(items, frequency, -1)});
        found.postings += frequency;
    }
    found.whole = postings_read(reader, frequencies, query);
    if (found.postings == 0 || found.whole < least_postings) return std::nullopt;
    return found;
}

TierPlan plan_tiers(const Xapian::Database &reader, const TierTerms &terms, unsigned times) {
    const double items = reader.get_doccount();
    // What each term adds at most to an item without its repeated term, and how many items have it.
    std::vector<std::pair<double, Xapian::doccount>> outside;
    double strongest = 0;
    for (const WeighedTerm &term : terms.terms) {
        outside.emplace_back(term_weight(items, term.frequency, times * term.one_occurrence),
                             reader.get_termfreq(repeated_term(term.term, times)));
        strongest = std::max(strongest, outside.back().first);
    }
    const uint64_t postings = terms.postings;

    // Each term is read in one of three ways. A term that weighs little beside the strongest
    // is not read at all, and counts with the most it can add. A term with few items (beside all
    // the query's terms', or beside its repeated term's) is read whole, and adds nothing outside
    // the filter. Any other term is read through its repeated term, and adds `times` occurrences'
    // weight outside it.
    TierPlan plan;
    std::set<std::string> filter_terms;
    uint64_t cost = 0;
    double most_read_whole = 0, most_through_repeats = 0;
    for (size_t i = 0; i < terms.terms.size(); ++i) {
        const WeighedTerm &term = terms.terms[i];
        const auto [adds_outside, repeated_frequency] = outside[i];
        if (term.most <= strongest / 4) {
            plan.bound += term.most;
        } else if (term.frequency <= postings / 16 || term.frequency <= 2 * uint64_t(repeated_frequency)) {
            if (filter_terms.insert(term.term).second) cost += term.frequency;
            most_read_whole = std::max(most_read_whole, term.most);
        } else {
            most_through_repeats = std::max(most_through_repeats, term.most);
            plan.bound += adds_outside;
            if (filter_terms.insert(repeated_term(term.term, times)).second) cost += repeated_frequency;
        }
    }
    // Matching a filtered item costs a step through each of the query's lists, several times
    // what reading one posting of a whole search costs. At 1,000,000 items, filters of about a
    // seventh of the postings took 5.3 ms against 3.4 whole ("dra", as typed) and 10 ms against
    // 14 ("title:stun"); one of a two-hundredth ("vind") 6 ms against 13.
    if (filter_terms.empty() || cost > terms.whole / 8) return {};
    // When the weightiest term is one read whole, a whole search soon needs it in every item it
    // keeps, and Xapian then reads little more than that term's postings, as the filter would
    // ("dra", as typed, whose keyword beginning weighs most: 4.8 ms tiered against 3.5 whole).
    if (most_read_whole >= most_through_repeats) return {};
    std::vector<Query> filters(filter_terms.begin(), filter_terms.end());
    plan.filter = Query(Query::OP_OR, filters.begin(), filters.end());
    return plan;
}

}  // namespace cx
