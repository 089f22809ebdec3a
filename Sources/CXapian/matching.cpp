// Queries handed to Xapian's matcher in a form it runs on every index (`matchable`), the weight
// scales of a query with their factors recorded, and the weighed parts Xapian counts in a query.

#include "matching.hpp"

#include <algorithm>
#include <vector>

namespace cx {

namespace {

using Query = Xapian::Query;

class Rewrite {
  public:
    /// `gaps`: whether the index's document ids have gaps, where a term every item holds is given
    /// as `MatchAll`.
    Rewrite(const Xapian::Database &reader, bool gaps) : reader_(reader), items_(reader.get_doccount()), gaps_(gaps) {}

    /// `query` with its terms that weigh nothing (`weighs` false) and that every item holds given
    /// as `MatchAll`; `query` itself when none is.
    Query operator()(const Query &query, bool weighs) {
        switch (query.get_type()) {
            case Query::LEAF_TERM: {
                const std::string &term = *query.get_terms_begin();
                return gaps_ && !weighs && !term.empty() && reader_.get_termfreq(term) == items_ ? match_all() : query;
            }
            case Query::OP_SCALE_WEIGHT:
                // Weighing, its subquery was made matchable for its factor as the scale was built
                // (`scaled`); weighing nothing, nothing under it weighs, whatever its factor.
                return weighs ? query : (*this)(query.get_subquery(0), false);
            case Query::OP_AND_MAYBE:
                // Weighing nothing, it matches what its first subquery matches: the others, which
                // only weigh (as-you-type's beginning term), are not read.
                if (!weighs) return (*this)(query.get_subquery(0), false);
                return each(query, [](size_t) { return true; });
            case Query::OP_AND:
            case Query::OP_OR:
            case Query::OP_XOR:
                return each(query, [weighs](size_t) { return weighs; });
            case Query::OP_FILTER:
            case Query::OP_AND_NOT:
                // Only the first subquery weighs.
                return each(query, [weighs](size_t i) { return weighs && i == 0; });
            case Query::OP_SYNONYM:
            case Query::OP_MAX:
                // Weighing nothing, Xapian reads them as an OR, each term on its own; weighed, a
                // synonym's terms are read for their wdf.
                return weighs ? query : each(query, [](size_t) { return false; });
            default:
                // Leaves that are not terms, and the terms of phrases and windows, which Xapian reads
                // on their own for their positions.
                return query;
        }
    }

  private:
    const Xapian::Database &reader_;
    Xapian::doccount items_;
    bool gaps_;

    static bool same(const Query &a, const Query &b) { return a.internal.get() == b.internal.get(); }

    template <typename Weighs> Query each(const Query &query, Weighs weighs) {
        std::vector<Query> parts;
        bool changed = false;
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
            const Query part = query.get_subquery(i);
            parts.push_back((*this)(part, weighs(i)));
            changed = changed || !same(parts.back(), part);
        }
        return changed ? Query(query.get_type(), parts.begin(), parts.end()) : query;
    }
};

}  // namespace

Query matchable(const Xapian::Database &reader, const Query &query, bool weighs) {
    // Without gaps in the document ids, Xapian counts the items instead of reading their list; a
    // query weighing nothing still sheds what only weighs.
    const bool gaps = reader.get_lastdocid() != reader.get_doccount();
    if (!gaps && weighs) return query;
    return Rewrite(reader, gaps)(query, weighs);
}

void set_matchable_query(Xapian::Enquire &enquire, const Xapian::Database &reader, const Query &query) {
    enquire.set_query(matchable(reader, query));
}

void set_counting_query(Xapian::Enquire &enquire, const Xapian::Database &reader, const Query &query) {
    enquire.set_weighting_scheme(Xapian::BoolWeight());
    enquire.set_query(matchable(reader, query, false));
}

Query scaled(const Xapian::Database &reader, const Query &query, double factor) {
    return Query(Query::OP_SCALE_WEIGHT, matchable(reader, query, factor != 0), factor);
}

Query ScaleFactors::scaled(const Xapian::Database &reader, const Query &query, double factor) {
    Query scale = cx::scaled(reader, query, factor);
    // Xapian gives a scale of a value range the range itself (it weighs nothing, scaled or not),
    // and one of nothing nothing.
    if (scale.get_type() == Query::OP_SCALE_WEIGHT) recorded_.emplace(scale.internal.get(), std::make_pair(scale, factor));
    return scale;
}

std::optional<double> ScaleFactors::of(const Query &scale) const {
    const auto found = recorded_.find(scale.internal.get());
    if (found == recorded_.end()) return std::nullopt;
    return found->second.second;
}

namespace {

/// `weighed_parts` of `query` reached with the weight factor `factor`, added to `parts`; false
/// when it holds what the count does not know.
bool add_weighed_parts(const Query &query, double factor, const ScaleFactors &factors, unsigned &parts) {
    // As Xapian 1.4 counts them (`inc_total_subqs` in `api/queryinternal.cc`).
    switch (query.get_type()) {
        case Query::LEAF_TERM:
        case Query::LEAF_MATCH_ALL:
        case Query::LEAF_POSTING_SOURCE:
        case Query::OP_VALUE_RANGE:
        case Query::OP_VALUE_GE:
        case Query::OP_VALUE_LE:
        case Query::OP_SYNONYM:
        case Query::OP_MAX:
            // A synonym and OP_MAX count as one, whatever they hold.
            if (factor != 0) ++parts;
            return true;
        case Query::LEAF_MATCH_NOTHING:
            return true;
        case Query::OP_SCALE_WEIGHT: {
            const std::optional<double> scale = factors.of(query);
            return scale && add_weighed_parts(query.get_subquery(0), factor * *scale, factors, parts);
        }
        case Query::OP_AND:
        case Query::OP_OR:
        case Query::OP_XOR:
        case Query::OP_AND_MAYBE:
        case Query::OP_PHRASE:
        case Query::OP_NEAR:
        case Query::OP_FILTER:
        case Query::OP_AND_NOT: {
            // A filter's and an exclusion's other parts are read weighing nothing.
            const bool first_only = query.get_type() == Query::OP_FILTER || query.get_type() == Query::OP_AND_NOT;
            for (size_t i = 0; i < query.get_num_subqueries(); ++i)
                if (!add_weighed_parts(query.get_subquery(i), first_only && i > 0 ? 0.0 : factor, factors, parts))
                    return false;
            return true;
        }
        default:
            return false;
    }
}

}  // namespace

std::optional<unsigned> weighed_parts(const Query &query, const ScaleFactors &factors) {
    unsigned parts = 0;
    if (!add_weighed_parts(query, 1, factors, parts)) return std::nullopt;
    return parts;
}

}  // namespace cx
