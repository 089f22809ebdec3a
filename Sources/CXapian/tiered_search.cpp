// How a ranked search reads the impact tiers (tiers.cpp): a walk of its query gathers candidates
// (each term's tier, or the whole posting list of a rarer term) and a bound on what any other item
// can weigh; Xapian's matcher weighs the candidates most promising first, and the page is proven
// when its last result outweighs every candidate left and the bound.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>

#include "bm25.hpp"
#include "matching.hpp"
#include "percents.hpp"
#include "tiers.hpp"
#include "tiers_format.hpp"
#include "views.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;

/// How many of a word's top items `Walk::go_together` probes.
constexpr size_t go_together_probe = 32;

/// The bound's margin for rounding: Xapian computes the same products in another order.
constexpr double rounding_margin = 1e-9;

/// BM25's term weight of a term `frequency` of `items` hold, times k1 + 1 and the query's
/// repetition factor: what an item's impact is multiplied by.
double weight_per_impact(double items, double frequency, double wqf) {
    return bm25::idf(items, frequency) * (bm25::k1 + 1) * bm25::query_factor(wqf);
}


/// A candidate of a subquery: an item and the most it can weigh from the subquery.
struct Candidate {
    Xapian::docid id;
    double ceiling;
};

/// What the walk of a subquery learned: its candidates, in ascending ids, each with its ceiling,
/// whether every item it matches is one of them, and `bound`, the most any other item can weigh
/// from it (nothing, when the candidates hold every match). Posting lists and tiers are read in
/// ascending ids, so the parts of a query are merged, never hashed.
struct Part {
    bool covered = false;
    double bound = 0;
    std::vector<Candidate> candidates;
    /// When covered, how many postings Xapian's matcher reads to evaluate it: its lists' (the
    /// smallest covering one's, for an AND).
    double postings = 0;

    bool holds(Xapian::docid id) const {
        const auto found = first_from(candidates.begin(), candidates.end(), id);
        return found != candidates.end() && found->id == id;
    }

    /// The first candidate from `from` whose id is `id` or more.
    static std::vector<Candidate>::const_iterator first_from(std::vector<Candidate>::const_iterator from,
                                                             std::vector<Candidate>::const_iterator end,
                                                             Xapian::docid id) {
        return std::lower_bound(from, end, id, [](const Candidate &candidate, Xapian::docid id) { return candidate.id < id; });
    }
};

/// Reads a part's ceilings for ascending ids: each id's ceiling, or the part's bound for an item
/// that is not its candidate.
class Ceilings {
  public:
    explicit Ceilings(const Part &part) : part_(part), next_(part.candidates.begin()) {}

    double of(Xapian::docid id) {
        next_ = Part::first_from(next_, part_.candidates.end(), id);
        return next_ != part_.candidates.end() && next_->id == id ? next_->ceiling : part_.bound;
    }

  private:
    const Part &part_;
    std::vector<Candidate>::const_iterator next_;
};

/// The candidates of `part`, in ascending ids.
std::vector<Xapian::docid> candidate_ids(const Part &part) {
    std::vector<Xapian::docid> ids;
    ids.reserve(part.candidates.size());
    for (const Candidate &candidate : part.candidates) ids.push_back(candidate.id);
    return ids;
}

/// Parts that add up (an OR, an AND none of whose parts covers it): the candidates of each, each
/// weighing the bounds of all plus what its own parts give it above theirs.
Part summed(const std::vector<Part> &parts, bool covered) {
    Part all{covered, 0, {}};
    for (const Part &part : parts) {
        all.bound += part.bound;
        all.postings += part.postings;
    }
    std::vector<Candidate> merged;
    for (const Part &part : parts) {
        std::vector<Candidate> next;
        next.reserve(merged.size() + part.candidates.size());
        auto before = merged.cbegin();
        for (const Candidate &candidate : part.candidates) {
            while (before != merged.cend() && before->id < candidate.id) next.push_back(*before++);
            const double above = candidate.ceiling - part.bound;
            if (before != merged.cend() && before->id == candidate.id)
                next.push_back({candidate.id, (before++)->ceiling + above});
            else
                next.push_back({candidate.id, all.bound + above});
        }
        next.insert(next.end(), before, merged.cend());
        merged = std::move(next);
    }
    all.candidates = std::move(merged);
    return all;
}

/// An AND whose matches are all among `matches` (a covered part's candidates, in ascending ids):
/// they weigh what all `parts` give them, any other item nothing.
Part covered_by(const std::vector<Part> &parts, const std::vector<Xapian::docid> &matches, double postings) {
    Part covering{true, 0, {}, postings};
    std::vector<Ceilings> ceilings(parts.begin(), parts.end());
    covering.candidates.reserve(matches.size());
    for (Xapian::docid id : matches) {
        double ceiling = 0;
        for (Ceilings &part : ceilings) ceiling += part.of(id);
        covering.candidates.push_back({id, ceiling});
    }
    return covering;
}

/// Walks a query's tree, gathering the candidates and the bound.
class Walk {
  public:
    /// What a walk finds: whether the query is covered (every item it matches is in a posting list
    /// of `whole_list_limit` items or fewer, so that Xapian's matcher, driven by those lists,
    /// evaluates it in full as cheaply as the tiers could, and counts it too), reading no postings;
    /// or its candidates and bound.
    enum Finding { coverage, candidates };

    Walk(const Xapian::Database &reader, const TiersRecord &tiers, const ScaleFactors &factors, Finding finding)
        : reader_(reader), factors_(factors), finding_(finding), items_(reader.get_doccount()),
          growth_(std::max(1.0, reader.get_avlength() / tiers.average)) {}

    /// Whether the query holds only what the walk can bound.
    bool ok = true;

    void count_terms(const Query &query) {
        if (query.get_type() == Query::LEAF_TERM) {
            ++wqf_[*query.get_terms_begin()];
            return;
        }
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) count_terms(query.get_subquery(i));
    }

    Part walk(const Query &query, double factor) {
        if (!ok) return {};
        switch (query.get_type()) {
            case Query::LEAF_TERM:
                return term(*query.get_terms_begin(), factor);
            case Query::LEAF_MATCH_NOTHING:
                return {true, 0, {}};
            case Query::LEAF_MATCH_ALL:
                // Every item, each weighing under the term weight of a term all of them hold.
                return {false, factor * weight_per_impact(items_, items_, 1), {}, items_};
            case Query::OP_SCALE_WEIGHT: {
                const std::optional<double> scale = factors_.of(query);
                if (!scale) {
                    ok = false;
                    return {};
                }
                return walk(query.get_subquery(0), factor * *scale);
            }
            case Query::OP_AND:
            case Query::OP_NEAR:
            case Query::OP_PHRASE:
            case Query::OP_FILTER: {
                if (finding_ == candidates) {
                    if (std::optional<Part> pair = phrase_of_pair(query, factor)) return *pair;
                    if (query.get_type() == Query::OP_AND && factor != 0 && !any_covered(query) && !go_together(query)) {
                        ok = false;
                        return {};
                    }
                }
                // A match matches every subquery: the candidates of the smallest covered one hold
                // every match, and nothing else weighs from it. OP_FILTER weighs by its first
                // subquery alone.
                std::vector<Part> parts;
                for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
                    const bool weighed = query.get_type() != Query::OP_FILTER || i == 0;
                    parts.push_back(walk(query.get_subquery(i), weighed ? factor : 0));
                }
                const Part *smallest = nullptr;
                for (const Part &part : parts)
                    if (part.covered && (smallest == nullptr || part.candidates.size() < smallest->candidates.size()))
                        smallest = &part;
                if (smallest == nullptr) {
                    // A phrase (or window) of words none of which is rare, and not paired, which a
                    // pair's tier would have proven: few of the words' top items hold it together
                    // (`"veax wom"`: 132 of `veax`'s 3,701 items), so weighing them would not fill
                    // the page, and the full evaluation runs after that in any case.
                    if (query.get_type() == Query::OP_PHRASE || query.get_type() == Query::OP_NEAR) {
                        ok = false;
                        return {};
                    }
                    return summed(parts, false);
                }
                return covered_by(parts, matching(query, candidate_ids(*smallest)), smallest->postings);
            }
            case Query::OP_AND_NOT:
                // What it excludes neither weighs nor adds candidates.
                return walk(query.get_subquery(0), factor);
            case Query::OP_AND_MAYBE: {
                // A match matches the first subquery, and may weigh from the others too.
                std::vector<Part> parts;
                for (size_t i = 0; i < query.get_num_subqueries(); ++i)
                    parts.push_back(walk(query.get_subquery(i), factor));
                if (!parts[0].covered) return summed(parts, false);
                return covered_by(parts, candidate_ids(parts[0]), parts[0].postings);
            }
            case Query::OP_SYNONYM:
                return synonym(query, factor);
            case Query::OP_OR:
            case Query::OP_XOR: {
                // An OR of many short lists that weighs nothing (the words a prefix begins) gives
                // no candidates: reading its lists would cost more than it saves.
                if (factor == 0) {
                    const Finding finding = finding_;
                    finding_ = coverage;
                    Part filter;
                    for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
                        const Part part = walk(query.get_subquery(i), 0);
                        filter.covered = (i == 0 || filter.covered) && part.covered;
                        filter.postings += part.postings;
                    }
                    finding_ = finding;
                    if (!filter.covered || filter.postings > whole_list_limit) return {false, 0, {}, filter.postings};
                }
                // An item outside the candidates weighs from the subqueries that do not cover it.
                std::vector<Part> parts;
                bool covered = true;
                for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
                    parts.push_back(walk(query.get_subquery(i), factor));
                    covered = covered && parts.back().covered;
                }
                return summed(parts, covered);
            }
            default:
                // Value ranges and posting sources filter (weighing nothing) in a search's words.
                if (factor != 0) ok = false;
                return {};
        }
    }

  private:
    const Xapian::Database &reader_;
    const ScaleFactors &factors_;
    Finding finding_;
    double items_;
    /// How much an impact can have grown since the tiers were built: the average length's growth.
    double growth_;
    std::unordered_map<std::string, unsigned> wqf_;

    /// Whether a subquery of `query` is covered, reading no postings.
    bool any_covered(const Query &query) {
        const Finding finding = finding_;
        finding_ = coverage;
        bool covered = false;
        for (size_t i = 0; i < query.get_num_subqueries() && !covered; ++i) covered = walk(query.get_subquery(i), 1).covered;
        finding_ = finding;
        return covered;
    }

    /// Whether the words of an AND none of which is rare go together: whether at least half of the
    /// items that hold its first tiered word most (`go_together_probe` of them) match it whole. Words that do not
    /// (`hun rer`: an item among one word's top items holds the other no more often than any item
    /// does) fill few pages from their tiers, whose candidates mostly lack the other words, and
    /// whose few matches seldom outweigh an item holding every word at the tiers' thresholds: at
    /// 1,000,000 items, no page of the benchmark's two words is proven, and trying made each search
    /// a third slower than Xapian's matcher skipping along the rarer word's list. Words that go
    /// together (`river garden`, `deep linking`) are proven from their most promising candidates.
    bool go_together(const Query &query) {
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
            const Query part = query.get_subquery(i);
            if (part.get_type() != Query::LEAF_TERM || !is_weighed_term(*part.get_terms_begin())) continue;
            double threshold;
            std::vector<TierPosting> tier;
            // A tier shorter than the probe (its word's items all alike but a few) says little.
            if (!read_tier(reader_, *part.get_terms_begin(), threshold, tier) || tier.size() < go_together_probe)
                continue;
            std::partial_sort(tier.begin(), tier.begin() + long(go_together_probe), tier.end(),
                              [](const TierPosting &a, const TierPosting &b) {
                                  return a.impact != b.impact ? a.impact > b.impact : a.id < b.id;
                              });
            std::vector<Xapian::docid> top;
            for (size_t j = 0; j < go_together_probe; ++j) top.push_back(tier[j].id);
            std::sort(top.begin(), top.end());
            return 2 * matching(query, std::move(top)).size() >= go_together_probe;
        }
        // No word of it has a tier to probe: its candidates are weighed, the most promising first.
        return true;
    }

    /// Those of `ids` (ascending) that `query` matches: an item of a covering list may lack the
    /// AND's other parts (a rare pair of Chinese characters without the rest of the question), and
    /// weighs nothing from it then.
    std::vector<Xapian::docid> matching(const Query &query, std::vector<Xapian::docid> ids) {
        if (ids.empty()) return {};
        const Xapian::doccount count = Xapian::doccount(ids.size());
        Xapian::Enquire enquire(reader_);
        set_counting_query(enquire, reader_, Query(Query::OP_FILTER, query, id_query(std::move(ids))));
        enquire.set_docid_order(Xapian::Enquire::ASCENDING);
        const Xapian::MSet matches = enquire.get_mset(0, count);
        std::vector<Xapian::docid> matched;
        matched.reserve(matches.size());
        for (auto it = matches.begin(); it != matches.end(); ++it) matched.push_back(*it);
        return matched;
    }

    /// A phrase of two common words read through their pair (`with_pairs`: their AND filtered by the
    /// pair's term), when the pair has a tier: its candidates, each weighing at most what its impacts
    /// for the two words give, and any other item holding the pair at most what both θ give.
    std::optional<Part> phrase_of_pair(const Query &query, double factor) {
        if (query.get_type() != Query::OP_FILTER || query.get_num_subqueries() != 2) return std::nullopt;
        const Query words = query.get_subquery(0), pair = query.get_subquery(1);
        if (pair.get_type() != Query::LEAF_TERM || words.get_type() != Query::OP_AND || words.get_num_subqueries() != 2)
            return std::nullopt;
        const Query first = words.get_subquery(0), second = words.get_subquery(1);
        if (first.get_type() != Query::LEAF_TERM || second.get_type() != Query::LEAF_TERM) return std::nullopt;
        const std::string name = *pair.get_terms_begin();
        std::string first_word, second_word;
        if (!pair_words(name, first_word, second_word) || first_word != *first.get_terms_begin() ||
            second_word != *second.get_terms_begin())
            return std::nullopt;
        double first_threshold, second_threshold;
        std::vector<PairTierPosting> tier;
        if (!read_pair_tier(reader_, name, first_threshold, second_threshold, tier)) return std::nullopt;
        // Each word of a phrase is a term of its own, which Xapian weighs by its own frequency in the
        // query (1 for a phrase's), whatever other parts of the query hold the same word.
        const auto weight = [&](const Query &leaf) {
            return factor * weight_per_impact(items_, reader_.get_termfreq(*leaf.get_terms_begin()), leaf_wqf(leaf));
        };
        const double first_weight = weight(first), second_weight = weight(second);
        first_threshold = std::min(1.0, first_threshold * growth_);
        second_threshold = std::min(1.0, second_threshold * growth_);
        Part part;
        part.bound = first_weight * first_threshold + second_weight * second_threshold;
        // A pair's tier holds the impacts its items have now (writers replace them), so an item in it
        // for one word weighs by its own impact for the other, however far under θ.
        const auto ceiling = [&](uint8_t impact) { return std::min(1.0, impact / 255.0 * growth_); };
        for (const PairTierPosting &posting : tier)
            part.candidates.push_back(
                {posting.id, first_weight * ceiling(posting.first) + second_weight * ceiling(posting.second)});
        return part;
    }

    /// A word's forms in several languages, one synonym (`LeafTerms`): Xapian weighs it as one term
    /// whose within-item frequency is the forms' together and whose frequency is at least each
    /// form's, at a query frequency of 1. So an item weighs from it at most the sum of what each
    /// form would weigh alone (an impact, wdf / (wdf + c), is concave: the impact of a sum is at
    /// most the sum of the impacts) at the term weight of the most frequent form (the greatest the
    /// synonym's can be).
    Part synonym(const Query &query, double factor) {
        Xapian::doccount most = 0;
        std::vector<std::string> forms;
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
            const Query form = query.get_subquery(i);
            if (form.get_type() != Query::LEAF_TERM) {
                ok = false;
                return {};
            }
            forms.push_back(*form.get_terms_begin());
            most = std::max(most, reader_.get_termfreq(forms.back()));
        }
        if (most == 0) return {true, 0, {}};
        const double weight = factor * weight_per_impact(items_, most, 1);
        std::vector<Part> parts;
        bool covered = true;
        for (const std::string &form : forms) {
            parts.push_back(term(form, weight, reader_.get_termfreq(form)));
            covered = covered && parts.back().covered;
        }
        return summed_forms(parts, forms, covered);
    }

    /// The forms' parts summed as `summed` sums parts, but a candidate of one form adds what another
    /// form weighs below its candidates (its bound) only when it holds that form, its posting list
    /// read to the candidate: an item of one language seldom holds another language's form, and
    /// adding every other form's bound to each candidate would leave too many candidates above the
    /// page to prove it.
    Part summed_forms(const std::vector<Part> &parts, const std::vector<std::string> &forms, bool covered) {
        Part all{covered, 0, {}};
        std::vector<Xapian::docid> ids;
        for (const Part &part : parts) {
            all.bound += part.bound;
            all.postings += part.postings;
            for (const Candidate &candidate : part.candidates) ids.push_back(candidate.id);
        }
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        struct Cursor {
            std::vector<Candidate>::const_iterator next;
            Xapian::PostingIterator at, end;
        };
        std::vector<Cursor> cursors;
        for (size_t i = 0; i < parts.size(); ++i)
            cursors.push_back({parts[i].candidates.begin(), reader_.postlist_begin(forms[i]), reader_.postlist_end(forms[i])});
        all.candidates.reserve(ids.size());
        for (const Xapian::docid id : ids) {
            double ceiling = 0;
            for (size_t i = 0; i < parts.size(); ++i) {
                Cursor &cursor = cursors[i];
                cursor.next = Part::first_from(cursor.next, parts[i].candidates.end(), id);
                if (cursor.next != parts[i].candidates.end() && cursor.next->id == id) {
                    ceiling += cursor.next->ceiling;
                } else if (parts[i].bound > 0 && cursor.at != cursor.end) {
                    cursor.at.skip_to(id);
                    if (cursor.at != cursor.end && *cursor.at == id) ceiling += parts[i].bound;
                }
            }
            all.candidates.push_back({id, ceiling});
        }
        return all;
    }

    Part term(const std::string &name, double factor) {
        const Xapian::doccount frequency = reader_.get_termfreq(name);
        if (frequency == 0 || finding_ == coverage) return term(name, 0, frequency);
        return term(name, factor * weight_per_impact(items_, frequency, std::max(1u, wqf_[name])), frequency);
    }

    /// A term `frequency` items hold, each weighing `weight` times its impact.
    Part term(const std::string &name, double weight, Xapian::doccount frequency) {
        Part part;
        if (frequency == 0) return {true, 0, {}};
        if (finding_ == coverage) return {frequency <= whole_list_limit, 0, {}, double(frequency)};
        if (frequency <= whole_list_limit) {
            // Each item of the list weighs at most the impact its wdf has at the shortest length.
            for (auto it = reader_.postlist_begin(name); it != reader_.postlist_end(name); ++it)
                part.candidates.push_back({*it, weight * impact(it.get_wdf(), 0, 1)});
            part.covered = true;
            part.postings = frequency;
            return part;
        }
        double threshold = 1;
        std::vector<TierPosting> tier;
        if (is_weighed_term(name) && read_tier(reader_, name, threshold, tier)) {
            threshold = std::min(1.0, threshold * growth_);
            for (const TierPosting &posting : tier) {
                const double most = std::min(1.0, posting.impact / 255.0 * growth_);
                part.candidates.push_back({posting.id, weight * std::max(most, threshold)});
            }
        } else {
            threshold = 1;
        }
        part.bound = weight * threshold;
        return part;
    }
};

/// Lists given document ids, each weighing nothing.
class IdSource final : public Xapian::PostingSource {
  public:
    explicit IdSource(std::shared_ptr<const std::vector<Xapian::docid>> ids) : ids_(std::move(ids)) {}
    IdSource *clone() const override { return new IdSource(ids_); }
    void init(const Xapian::Database &) override {
        position_ = 0;
        started_ = false;
        set_maxweight(0);
    }
    Xapian::doccount get_termfreq_min() const override { return 0; }
    Xapian::doccount get_termfreq_est() const override { return Xapian::doccount(ids_->size()); }
    Xapian::doccount get_termfreq_max() const override { return Xapian::doccount(ids_->size()); }
    void next(double) override {
        if (started_) ++position_;
        started_ = true;
    }
    void skip_to(Xapian::docid id, double) override {
        started_ = true;
        if (position_ < ids_->size() && (*ids_)[position_] < id)
            position_ = size_t(std::lower_bound(ids_->begin() + long(position_), ids_->end(), id) - ids_->begin());
    }
    bool at_end() const override { return started_ && position_ >= ids_->size(); }
    Xapian::docid get_docid() const override { return (*ids_)[position_]; }
    std::string get_description() const override { return "IdSource()"; }

  private:
    std::shared_ptr<const std::vector<Xapian::docid>> ids_;
    size_t position_ = 0;
    bool started_ = false;
};

}  // namespace

Query id_query(std::vector<Xapian::docid> ids) {
    return id_query(std::make_shared<const std::vector<Xapian::docid>>(std::move(ids)));
}

Query id_query(std::shared_ptr<const std::vector<Xapian::docid>> ids) {
    return Query((new IdSource(std::move(ids)))->release());
}

/// Xapian 1.4's rating of a weight with a page's percent factor (`MSet::convert_to_percent`).
int32_t rated_percent(double weight, double factor) {
    if (factor == 0) return 100;
    const int32_t rated = int32_t(weight * factor + 100.0 * std::numeric_limits<double>::epsilon());
    if (rated > 100) return 100;
    if (rated < 0) return 0;
    return rated == 0 && weight > 0 ? 1 : rated;
}

std::optional<double> percent_factor(const Xapian::MSet &mset, unsigned parts, unsigned extra) {
    const double greatest = mset.get_max_attained();
    if (mset.empty() || !(greatest > 0)) return 0.0;
    if (parts == 0) return std::nullopt;
    // Xapian rates a weight w as w × 100 M / (parts × greatest), M being the parts the best result
    // matched: a weight of parts × greatest / 100 rates M, a hair above it for rounding, up to 100.
    const int32_t matched = mset.convert_to_percent(greatest * parts / 100 * (1 + 1e-9));
    if (matched <= int32_t(extra) || matched >= 100 || unsigned(matched) > parts + extra) return std::nullopt;
    // In Xapian's order (`matcher/multimatch.cc`), so that the factor is Xapian's to the bit.
    double scale = double(unsigned(matched) - extra) / double(parts);
    scale /= greatest;
    return scale * 100.0;
}

namespace {

/// A tiered search's candidates, in two lists, each most promising first: the walk's, each
/// weighing at most its ceiling and what its own views add; and the viewed items outside them,
/// each weighing at most the walk's bound and what its views add, from the most viewed. Any other
/// item weighs at most the walk's bound. The second list is read as far as a search asks.
class Candidates {
  public:
    Candidates(const Part &root, const ViewsBound &views) : root_(root), views_(views) {
        walked_.reserve(root.candidates.size());
        size_t viewed_among_walked = 0;
        for (const auto &[id, ceiling] : root.candidates) {
            const double gain = views.viewed ? views.weight * views.viewed->boost(id) : 0.0;
            if (gain > 0) ++viewed_among_walked;
            walked_.emplace_back(ceiling + gain, id);
        }
        std::sort(walked_.begin(), walked_.end(),
                  [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
        // An item outside a covered walk's candidates matches nothing, views or not.
        if (views.viewed && !root.covered) {
            viewed_ = views.viewed.get();
            viewed_count_ = viewed_->documents.size() - viewed_among_walked;
        }
    }

    size_t walked() const { return walked_.size(); }
    size_t viewed() const { return viewed_count_; }

    /// The ceiling of the walk's candidate at `position` (from 0); −∞ past the last.
    double walked_ceiling(size_t position) const {
        return position < walked_.size() ? walked_[position].first : -std::numeric_limits<double>::infinity();
    }

    /// The ceiling of the viewed candidate at `position` (from 0); −∞ past the last.
    double viewed_ceiling(size_t position) {
        read_viewed(position + 1);
        return position < viewed_ids_.size() ? root_.bound + views_.weight * viewed_->boosts[viewed_ids_[position]]
                                              : -std::numeric_limits<double>::infinity();
    }

    /// The ceiling of the candidate at `depth` (from 1) of both lists together.
    double ceiling_at(size_t depth) {
        size_t walked = 0, viewed = 0;
        double ceiling = -std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < depth; ++i) {
            const double next_walked = walked_ceiling(walked), next_viewed = viewed_ceiling(viewed);
            ceiling = std::max(next_walked, next_viewed);
            (next_walked >= next_viewed ? walked : viewed) += 1;
        }
        return ceiling;
    }

    /// The first `walked` of the walk's candidates and the first `viewed` viewed ones, in ascending ids.
    std::vector<Xapian::docid> first(size_t walked, size_t viewed) {
        read_viewed(viewed);
        std::vector<Xapian::docid> ids;
        ids.reserve(walked + viewed);
        for (size_t i = 0; i < walked && i < walked_.size(); ++i) ids.push_back(walked_[i].second);
        for (size_t i = 0; i < viewed && i < viewed_ids_.size(); ++i) ids.push_back(viewed_->documents[viewed_ids_[i]]);
        std::sort(ids.begin(), ids.end());
        return ids;
    }

    /// How many of the walk's candidates lead up to the last whose ceiling `weight` does not pass.
    size_t walked_reaching(double weight) const {
        size_t count = 0;
        while (count < walked_.size() && !passes(weight, walked_[count].first)) ++count;
        return count;
    }

    /// How many viewed candidates lead up to the last whose ceiling `weight` does not pass, or
    /// `most_candidates` + 1 when more do.
    size_t viewed_reaching(double weight) {
        size_t count = 0;
        while (count <= most_candidates && count < viewed_count_ && !passes(weight, viewed_ceiling(count))) ++count;
        return count;
    }

    /// Whether `weight` passes `bound`, with room for rounding.
    static bool passes(double weight, double bound) { return weight > bound * (1 + rounding_margin) + rounding_margin; }

  private:
    const Part &root_;
    const ViewsBound &views_;
    const ViewBoosts *viewed_ = nullptr;
    size_t viewed_count_ = 0;
    std::vector<std::pair<double, Xapian::docid>> walked_;
    /// The viewed candidates read so far: positions in `viewed_`'s lists.
    std::vector<uint32_t> viewed_ids_;
    size_t next_by_boost_ = 0;

    /// Reads the viewed candidates until `count` are read (or all are).
    void read_viewed(size_t count) {
        if (!viewed_) return;
        const std::vector<uint32_t> &by_boost = viewed_->by_boost();
        while (viewed_ids_.size() < count && next_by_boost_ < by_boost.size()) {
            const uint32_t position = by_boost[next_by_boost_++];
            if (!root_.holds(viewed_->documents[position])) viewed_ids_.push_back(position);
        }
    }
};

}  // namespace

std::optional<TieredPage> tiered_page(const Xapian::Database &reader, const Query &words, const ScaleFactors &factors,
                                      const std::function<std::optional<Xapian::Query>(std::vector<Xapian::docid>)> &among,
                                      const std::function<ViewsBound()> &bound_views, Xapian::doccount offset,
                                      Xapian::doccount limit, const Xapian::Weight &weighting) {
    const std::optional<TiersRecord> tiers = current_tiers(reader);
    if (!tiers || limit == 0 || Walk(reader, *tiers, factors, Walk::coverage).walk(words, 1).covered)
        return std::nullopt;
    const std::optional<unsigned> parts = weighed_parts(words, factors);
    if (!parts) return std::nullopt;
    Walk walk(reader, *tiers, factors, Walk::candidates);
    walk.count_terms(words);
    const Part root = walk.walk(words, 1);
    if (!walk.ok || root.candidates.size() > most_candidates) return std::nullopt;
    const ViewsBound views = bound_views();
    Candidates candidates(root, views);

    const auto run = [&](std::vector<Xapian::docid> ids, Xapian::doccount check) -> std::optional<Xapian::MSet> {
        const std::optional<Query> limited = among(std::move(ids));
        if (!limited) return std::nullopt;
        Xapian::Enquire enquire(reader);
        set_matchable_query(enquire, reader, *limited);
        enquire.set_weighting_scheme(weighting);
        return enquire.get_mset(offset, limit, check);
    };
    // The page, its results rated as a full evaluation rates them: the query's parts, and the
    // views' source when views weigh; Xapian counts the candidates' filter, a posting source, as
    // one more part each result matches, which the full evaluation does not hold.
    const auto proven = [&](Xapian::MSet mset) -> std::optional<TieredPage> {
        TieredPage page{std::move(mset), {}};
        const std::optional<double> factor = percent_factor(page.mset, *parts + (views.viewed ? 1 : 0), 1);
        if (!factor) return std::nullopt;
        for (auto it = page.mset.begin(); it != page.mset.end(); ++it)
            page.percents.push_back(rated_percent(it.get_weight(), *factor));
        return page;
    };
    const Xapian::doccount depth = offset + limit;
    // What an item neither walked nor viewed can weigh (nothing matches there when the root is covered).
    const double outside = root.bound;
    const auto passes = Candidates::passes;

    // The page's last result weighs at most the ceiling of the candidate at its depth: when that
    // does not pass what an item outside them can weigh, nothing can be proven.
    if (candidates.walked() + candidates.viewed() < depth || !passes(candidates.ceiling_at(depth), outside))
        return std::nullopt;
    // The walk's most promising candidates are weighed first; then, until the page's last result
    // outweighs every candidate left and every item outside them, those it does not outweigh.
    const size_t first_batch = std::max<size_t>(64, 4 * size_t(depth));
    size_t walked = std::min(candidates.walked(), first_batch), viewed = 0;
    if (walked < first_batch) viewed = std::min(candidates.viewed(), first_batch - walked);
    for (;;) {
        std::optional<Xapian::MSet> page = run(candidates.first(walked, viewed), depth);
        if (!page) return std::nullopt;
        const double rest = std::max(candidates.walked_ceiling(walked), candidates.viewed_ceiling(viewed));
        const bool full = page->size() == limit;
        if (full && passes((*page)[page->size() - 1].get_weight(), std::max(rest, outside))) return proven(std::move(*page));
        if (walked == candidates.walked() && viewed == candidates.viewed()) return std::nullopt;
        size_t next_walked = walked, next_viewed = viewed;
        const double last = full ? (*page)[page->size() - 1].get_weight() : 0.0;
        // The last result can still rise, to at most the ceiling of the first candidate left.
        if (!passes(std::max(last, rest), outside)) return std::nullopt;
        if (passes(last, outside)) {
            // The last result only rises as more candidates are weighed: those whose ceilings it
            // passes cannot enter the page, and weighing every other one proves it.
            next_walked = std::max(walked, candidates.walked_reaching(last));
            next_viewed = std::max(viewed, candidates.viewed_reaching(last));
        } else {
            // Matches this sparse among the walk's candidates (an AND of frequent words) would not
            // fill the page from all of them either; nor, past two batches, would more of them be
            // likely to lift its last result past an item outside them. Viewed items outside them
            // match no more often.
            if (!full && double(page->size()) * double(candidates.walked()) / double(std::max<size_t>(1, walked)) < limit)
                return std::nullopt;
            if (walked + viewed >= 4 * first_batch) return std::nullopt;
            next_walked = std::min(candidates.walked(), 4 * walked);
            if (next_walked == walked) next_viewed = std::min(candidates.viewed(), std::max(4 * viewed, first_batch));
        }
        // Weighing this many costs more than the full evaluation saves.
        if (next_walked + next_viewed > most_candidates || next_walked + next_viewed == walked + viewed)
            return std::nullopt;
        walked = next_walked;
        viewed = next_viewed;
    }
}

}  // namespace cx
