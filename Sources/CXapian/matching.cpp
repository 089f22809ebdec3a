// Queries handed to Xapian's matcher in a form it runs on every index (`matchable`), and what a
// built query's description tells.

#include "matching.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace cx {

namespace {

using Query = Xapian::Query;

class Rewrite {
  public:
    explicit Rewrite(const Xapian::Database &reader) : reader_(reader), items_(reader.get_doccount()) {}

    /// `query` with its terms that weigh nothing (`weighs` false) and that every item holds given
    /// as `MatchAll`; `query` itself when none is.
    Query operator()(const Query &query, bool weighs) {
        switch (query.get_type()) {
            case Query::LEAF_TERM: {
                const std::string &term = *query.get_terms_begin();
                return !weighs && !term.empty() && reader_.get_termfreq(term) == items_ ? Query::MatchAll : query;
            }
            case Query::OP_SCALE_WEIGHT: {
                const double factor = scale_factor(query);
                const Query inner = query.get_subquery(0);
                const Query rewritten = (*this)(inner, weighs && factor != 0);
                return same(rewritten, inner) ? query : Query(Query::OP_SCALE_WEIGHT, rewritten, factor);
            }
            case Query::OP_AND:
            case Query::OP_OR:
            case Query::OP_XOR:
            case Query::OP_AND_MAYBE:
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
            case Query::OP_WILDCARD: {
                // Weighing nothing, an OR of its expansions. Searchlight's wildcards keep their most
                // frequent expansions (WILDCARD_LIMIT_MOST_FREQUENT): with one that every item holds,
                // it matches every item.
                const std::optional<std::string> pattern = weighs ? std::nullopt : wildcard_pattern(query);
                if (!pattern) return query;
                for (auto it = reader_.allterms_begin(*pattern); it != reader_.allterms_end(*pattern); ++it)
                    if (it.get_termfreq() == items_) return Query::MatchAll;
                return query;
            }
            default:
                // Leaves that are not terms, and the terms of phrases and windows, which Xapian reads
                // on their own for their positions.
                return query;
        }
    }

  private:
    const Xapian::Database &reader_;
    Xapian::doccount items_;

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
    // Without gaps in the document ids, Xapian counts the items instead of reading their list.
    if (reader.get_lastdocid() == reader.get_doccount()) return query;
    return Rewrite(reader)(query, weighs);
}

void set_matchable_query(Xapian::Enquire &enquire, const Xapian::Database &reader, const Query &query) {
    enquire.set_query(matchable(reader, query));
}

void set_counting_query(Xapian::Enquire &enquire, const Xapian::Database &reader, const Query &query) {
    enquire.set_weighting_scheme(Xapian::BoolWeight());
    enquire.set_query(matchable(reader, query, false));
}

double scale_factor(const Query &query) {
    const std::string description = query.get_description();
    return std::strtod(description.c_str() + 6, nullptr);
}

std::optional<std::string> wildcard_pattern(const Query &query) {
    const std::string description = query.get_description();
    const std::string start = "Query(WILDCARD ";
    if (description.compare(0, start.size(), start) != 0 || description.back() != ')') return std::nullopt;
    const size_t space = description.find(' ', start.size());
    if (space == std::string::npos) return std::nullopt;
    return description.substr(space + 1, description.size() - space - 2);
}

}  // namespace cx
