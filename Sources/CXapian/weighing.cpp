// A search's words weighed from the items' lengths kept in memory (`cx::lengths`).
//
// BM25 divides a word's within-item frequency by the item's length. Xapian 1.4 reads that length,
// for every match of a weighed term, from its own list of lengths: glass moves to the chunk
// holding the item and decodes it entry by entry up to the item. A search that weighs thousands of
// matches (two words neither of whose impact tiers can prove the page) spends most of its time
// there. Here each weighed word is a posting source over the word's own postings that reads the
// length from an array: the same arithmetic, in Xapian's order, on the same numbers.

#include "weighing.hpp"

#include <algorithm>
#include <cmath>

#include "bm25.hpp"
#include "matching.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;

/// One word's postings, weighed as Xapian 1.4's `BM25Weight` weighs a term of `wqf` under `factor`
/// (`weight/bm25weight.cc`, `weight/weight.cc`), the length of each item read from `lengths`.
class WordSource final : public Xapian::PostingSource {
  public:
    WordSource(std::string word, Xapian::termcount wqf, double factor, std::shared_ptr<const Lengths> lengths)
        : word_(std::move(word)), wqf_(wqf), factor_(factor), lengths_(std::move(lengths)) {}

    WordSource *clone() const override { return new WordSource(word_, wqf_, factor_, lengths_); }
    std::string name() const override { return "searchlight.Word"; }

    Xapian::doccount get_termfreq_min() const override { return frequency_; }
    Xapian::doccount get_termfreq_est() const override { return frequency_; }
    Xapian::doccount get_termfreq_max() const override { return frequency_; }

    void init(const Xapian::Database &reader) override {
        frequency_ = reader.get_termfreq(word_);
        position_ = reader.postlist_begin(word_);
        end_ = reader.postlist_end(word_);
        started_ = false;
        const Xapian::doccount items = reader.get_doccount();
        // In the order Xapian's BM25Weight multiplies them: its term weight under the scales above
        // it, its query factor, then k1 + 1.
        term_weight_ = bm25::idf(items, frequency_) * factor_;
        term_weight_ *= bm25::query_factor(wqf_);
        term_weight_ *= (bm25::k1 + 1);
        length_factor_ = items == 0 ? 0 : Xapian::doclength(reader.get_total_length()) / items;
        if (length_factor_ != 0) length_factor_ = 1 / length_factor_;
        // The most it can weigh, as Xapian bounds a term: at the greatest within-item frequency its
        // posting list admits (glass's: the collection frequency less the first posting's, or that
        // first one) and the shortest length.
        Xapian::termcount most_wdf = 0;
        if (position_ != end_) {
            const Xapian::termcount first = position_.get_wdf();
            most_wdf = std::max(reader.get_collection_freq(word_) - first, first);
        }
        const Xapian::doclength shortest =
            std::max(std::max<Xapian::termcount>(most_wdf, reader.get_doclength_lower_bound()) * length_factor_,
                     bm25::min_normlen);
        set_maxweight(term_weight_ * bm25::impact(most_wdf, shortest));
    }

    void next(double) override {
        if (started_) ++position_;
        started_ = true;
    }

    void skip_to(Xapian::docid id, double) override {
        started_ = true;
        position_.skip_to(id);
    }

    bool at_end() const override { return started_ && position_ == end_; }
    Xapian::docid get_docid() const override { return *position_; }

    double get_weight() const override {
        const Xapian::docid id = *position_;
        const Xapian::termcount length = id < lengths_->of.size() ? lengths_->of[id] : 0;
        const Xapian::doclength normalised = std::max(length * length_factor_, bm25::min_normlen);
        return term_weight_ * bm25::impact(position_.get_wdf(), normalised);
    }

  private:
    std::string word_;
    Xapian::termcount wqf_;
    double factor_;
    std::shared_ptr<const Lengths> lengths_;
    Xapian::doccount frequency_ = 0;
    Xapian::PostingIterator position_, end_;
    bool started_ = false;
    double term_weight_ = 0, length_factor_ = 0;
};

class Rewrite {
  public:
    Rewrite(const Xapian::Database &reader, const ScaleFactors &factors, std::shared_ptr<const Lengths> lengths)
        : reader_(reader), factors_(factors), lengths_(std::move(lengths)) {}

    /// `query` weighing `factor` times what it weighs alone: Xapian multiplies the factors of the
    /// weight scales from the root down, and a word's source takes its product as Xapian's own
    /// weighing would, so the scales above it go.
    Query operator()(const Query &query, double factor) {
        switch (query.get_type()) {
            case Query::LEAF_TERM: {
                const std::string &word = *query.get_terms_begin();
                if (word.empty()) return scaled(query, factor);
                return Query((new WordSource(word, leaf_wqf(query), factor, lengths_))->release());
            }
            case Query::OP_SCALE_WEIGHT: {
                const std::optional<double> scale = factors_.of(query);
                // Weighing nothing, it is left to Xapian, which reads no length for it; so is a
                // scale whose factor was not recorded.
                if (!scale || *scale == 0) return scaled(query, factor);
                const double inner = factor * *scale;
                return (*this)(query.get_subquery(0), inner);
            }
            case Query::OP_AND:
            case Query::OP_OR:
            case Query::OP_XOR:
            case Query::OP_AND_MAYBE:
                return each(query, factor, query.get_num_subqueries());
            case Query::OP_FILTER:
            case Query::OP_AND_NOT:
                // Only the first subquery weighs.
                return each(query, factor, 1);
            default:
                // Phrases and windows read their terms' positions, and synonyms their summed
                // within-item frequencies, through Xapian's own lists.
                return scaled(query, factor);
        }
    }

  private:
    const Xapian::Database &reader_;
    const ScaleFactors &factors_;
    std::shared_ptr<const Lengths> lengths_;

    /// `query` weighing `factor` times its own weight, as Xapian weighs it.
    Query scaled(const Query &query, double factor) const {
        return factor == 1 ? query : cx::scaled(reader_, query, factor);
    }

    /// `query` with its first `weighed` subqueries rewritten, the others as they are.
    Query each(const Query &query, double factor, size_t weighed) {
        std::vector<Query> parts;
        for (size_t i = 0; i < query.get_num_subqueries(); ++i)
            parts.push_back(i < weighed ? (*this)(query.get_subquery(i), factor) : query.get_subquery(i));
        return Query(query.get_type(), parts.begin(), parts.end());
    }
};

}  // namespace

Query weighed_from_lengths(const Xapian::Database &reader, const Query &query, const ScaleFactors &factors,
                           std::shared_ptr<const Lengths> lengths) {
    return Rewrite(reader, factors, std::move(lengths))(query, 1);
}

}  // namespace cx
