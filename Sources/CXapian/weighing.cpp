// A search's words weighed from the items' lengths kept in memory (`cx::lengths`).
//
// BM25 divides a word's within-item frequency by the item's length. Xapian 1.4 reads that length,
// for every match of a weighed term, from its own list of lengths: glass moves to the chunk
// holding the item and decodes it entry by entry up to the item. A search that weighs thousands of
// matches (two words neither of whose impact tiers can prove the page) spends most of its time
// there. Here each weighed word, and each word's forms joined as one synonym, is a posting source
// over the word's own postings that reads the length from an array: the same arithmetic, in
// Xapian's order, on the same numbers.

#include "weighing.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "bm25.hpp"
#include "matching.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;

/// A term's BM25 weighting as Xapian 1.4's `BM25Weight` computes it (`weight/bm25weight.cc`), each
/// step in its order, for the posting sources below.
struct TermWeighing {
    double term_weight = 0, length_factor = 0;

    /// For a term `frequency` items hold, repeated `wqf` times in the query, under `factor`: its
    /// term weight under the scales above it, its query factor, then k1 + 1; and the inverse of the
    /// average length.
    TermWeighing(const Xapian::Database &reader, Xapian::doccount frequency, Xapian::termcount wqf, double factor) {
        const Xapian::doccount items = reader.get_doccount();
        term_weight = bm25::idf(items, frequency) * factor;
        term_weight *= bm25::query_factor(wqf);
        term_weight *= (bm25::k1 + 1);
        length_factor = items == 0 ? 0 : Xapian::doclength(reader.get_total_length()) / items;
        if (length_factor != 0) length_factor = 1 / length_factor;
    }

    TermWeighing() = default;

    /// The most it weighs, as Xapian bounds a term: at `most_wdf` and the shortest length.
    double most(const Xapian::Database &reader, Xapian::termcount most_wdf) const {
        const Xapian::doclength shortest =
            std::max(std::max<Xapian::termcount>(most_wdf, reader.get_doclength_lower_bound()) * length_factor,
                     bm25::min_normlen);
        return term_weight * bm25::impact(most_wdf, shortest);
    }

    /// What it weighs in an item of `length` that holds it `wdf` times.
    double of(Xapian::termcount wdf, Xapian::termcount length) const {
        return term_weight * bm25::impact(wdf, std::max(length * length_factor, bm25::min_normlen));
    }
};

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
        weighing_ = TermWeighing(reader, frequency_, wqf_, factor_);
        // Bounded at the greatest within-item frequency its posting list admits (glass's: the
        // collection frequency less the first posting's, or that first one).
        Xapian::termcount most_wdf = 0;
        if (position_ != end_) {
            const Xapian::termcount first = position_.get_wdf();
            most_wdf = std::max(reader.get_collection_freq(word_) - first, first);
        }
        set_maxweight(weighing_.most(reader, most_wdf));
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
        return weighing_.of(position_.get_wdf(), id < lengths_->of.size() ? lengths_->of[id] : 0);
    }

  private:
    std::string word_;
    Xapian::termcount wqf_;
    double factor_;
    std::shared_ptr<const Lengths> lengths_;
    Xapian::doccount frequency_ = 0;
    Xapian::PostingIterator position_, end_;
    bool started_ = false;
    TermWeighing weighing_;
};

/// A word's forms in the languages a query is read in, one `OP_SYNONYM` of terms, weighed as Xapian
/// 1.4 weighs it (`matcher/synonympostlist.cc`, `LocalSubMatch::make_synonym_postlist`): one term
/// whose within-item frequency is the forms' together (at most the item's length), whose frequency
/// is Xapian's estimate of the forms' OR, at a query frequency of 1, bounded at the longest item's
/// length; the length of each item read from `lengths`.
class SynonymSource final : public Xapian::PostingSource {
  public:
    SynonymSource(std::vector<std::string> forms, double factor, std::shared_ptr<const Lengths> lengths)
        : forms_(std::move(forms)), factor_(factor), lengths_(std::move(lengths)) {}

    SynonymSource *clone() const override { return new SynonymSource(forms_, factor_, lengths_); }
    std::string name() const override { return "searchlight.Synonym"; }

    Xapian::doccount get_termfreq_min() const override { return least_; }
    Xapian::doccount get_termfreq_est() const override { return estimate_; }
    Xapian::doccount get_termfreq_max() const override { return most_; }

    void init(const Xapian::Database &reader) override {
        const Xapian::doccount items = reader.get_doccount();
        lists_.clear();
        std::vector<Xapian::doccount> frequencies;
        for (const std::string &form : forms_) {
            lists_.push_back({reader.postlist_begin(form), reader.postlist_end(form)});
            frequencies.push_back(reader.get_termfreq(form));
        }
        least_ = *std::max_element(frequencies.begin(), frequencies.end());
        // An OR's bounds: at least its most frequent form's items, at most theirs together.
        most_ = 0;
        for (const Xapian::doccount frequency : frequencies) most_ = std::min(most_ + frequency, items);
        estimate_ = or_estimate(frequencies, items);
        started_ = false;
        current_ = 0;
        // As Xapian weighs the synonym: at the OR's estimated frequency and a query frequency of 1,
        // bounded at a within-item frequency of the longest item's length (Weight::init_ for a
        // synonym).
        weighing_ = TermWeighing(reader, estimate_, 1, factor_);
        const Xapian::termcount most_wdf = reader.get_doclength_upper_bound();
        set_maxweight(most_ == 0 || most_wdf == 0 ? 0 : weighing_.most(reader, most_wdf));
    }

    void next(double) override {
        if (started_)
            for (List &list : lists_)
                if (list.at != list.end && *list.at == current_) ++list.at;
        started_ = true;
        settle();
    }

    void skip_to(Xapian::docid id, double) override {
        started_ = true;
        for (List &list : lists_)
            if (list.at != list.end) list.at.skip_to(id);
        settle();
    }

    bool at_end() const override { return started_ && current_ == 0; }
    Xapian::docid get_docid() const override { return current_; }

    double get_weight() const override {
        const Xapian::termcount length = current_ < lengths_->of.size() ? lengths_->of[current_] : 0;
        Xapian::termcount wdf = 0;
        for (const List &list : lists_)
            if (list.at != list.end && *list.at == current_) wdf += list.at.get_wdf();
        return weighing_.of(std::min(wdf, length), length);
    }

  private:
    struct List {
        Xapian::PostingIterator at, end;
    };

    std::vector<std::string> forms_;
    double factor_;
    std::shared_ptr<const Lengths> lengths_;
    std::vector<List> lists_;
    Xapian::doccount least_ = 0, estimate_ = 0, most_ = 0;
    Xapian::docid current_ = 0;
    bool started_ = false;
    TermWeighing weighing_;

    /// The least item any form's list is at; 0 when every list has ended.
    void settle() {
        current_ = 0;
        for (const List &list : lists_)
            if (list.at != list.end && (current_ == 0 || *list.at < current_)) current_ = *list.at;
    }

    /// Xapian's estimate of how many of `items` items an OR of terms of `frequencies` matches
    /// (`OrContext::postlist`, `OrPostList::get_termfreq_est_using_stats`): the two least frequent
    /// joined first, as independent, each join rounded.
    static Xapian::doccount or_estimate(std::vector<Xapian::doccount> frequencies, Xapian::doccount items) {
        const auto later = std::greater<Xapian::doccount>();
        std::make_heap(frequencies.begin(), frequencies.end(), later);
        while (frequencies.size() > 1) {
            std::pop_heap(frequencies.begin(), frequencies.end(), later);
            const double right = frequencies.back();
            frequencies.pop_back();
            std::pop_heap(frequencies.begin(), frequencies.end(), later);
            const double left = frequencies.back();
            frequencies.back() = Xapian::doccount(left + right - (left * right / items) + 0.5);
            std::push_heap(frequencies.begin(), frequencies.end(), later);
        }
        return frequencies.front();
    }
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
            case Query::OP_SYNONYM:
                return synonym(query, factor);
            default:
                // Phrases and windows read their terms' positions through Xapian's own lists.
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

    /// A synonym of distinct terms (a word's forms) as one source; any other synonym (of repeated
    /// terms, whose within-item frequency Xapian bounds otherwise, or of more than terms) as Xapian
    /// weighs it.
    Query synonym(const Query &query, double factor) {
        std::vector<std::string> forms;
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
            const Query form = query.get_subquery(i);
            if (form.get_type() != Query::LEAF_TERM) return scaled(query, factor);
            forms.push_back(*form.get_terms_begin());
            if (forms.back().empty()) return scaled(query, factor);
        }
        std::vector<std::string> sorted = forms;
        std::sort(sorted.begin(), sorted.end());
        if (forms.empty() || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() || factor == 0)
            return scaled(query, factor);
        return Query((new SynonymSource(std::move(forms), factor, lengths_))->release());
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
