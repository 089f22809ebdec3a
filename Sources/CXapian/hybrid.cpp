// Ranking by meaning: the items nearest a vector among those a query selects, and what a hybrid
// search needs around it.
//
// Every item's vector is a value (`CX_SLOT_MEANING`, meaning.cpp). A search by meaning is a match
// of its own over the selection, visibility and expiry included, weighted by a posting source
// that reads each candidate's vector and weighs it by its cosine with the query's: an item the
// caller may not see is never read, scored or counted.

#include "hybrid.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "columns.hpp"
#include "database.hpp"
#include "fan_out.hpp"
#include "matching.hpp"
#include "meaning.hpp"
#include "query.hpp"
#include "schema.hpp"
#include "tiers.hpp"
#include "visibility.hpp"

namespace {

/// Weighs each item with a vector by its cosine similarity with the query's vector (at least 0),
/// adding each similarity to `closeness`. The matcher weighs every candidate it comes to: the
/// source's greatest weight, 1, never lets it skip one.
class MeaningSource : public Xapian::ValuePostingSource {
  public:
    MeaningSource(std::shared_ptr<const cx::MeaningQuery> query, std::shared_ptr<cx::Closeness> closeness)
        : Xapian::ValuePostingSource(CX_SLOT_MEANING), query_(std::move(query)), closeness_(std::move(closeness)) {}

    MeaningSource *clone() const override { return new MeaningSource(query_, closeness_); }

    void init(const Xapian::Database &database) override {
        Xapian::ValuePostingSource::init(database);
        set_maxweight(1.0);
    }

    double get_weight() const override {
        // An item in a language the model does not read matches nothing (the cutoff drops 0).
        if (!cx::is_vector(get_value())) return 0;
        const double similarity = query_->similarity(get_value());
        closeness_->add(similarity);
        return std::clamp(similarity, 0.0, 1.0);
    }

    std::string get_description() const override { return "MeaningSource()"; }

  private:
    std::shared_ptr<const cx::MeaningQuery> query_;
    std::shared_ptr<cx::Closeness> closeness_;
};

/// The estimated cosine similarity of item `id`'s code with `coded`.
double estimate(const cx::MeaningCodes &codes, const cx::CodedQuery &coded, Xapian::docid id) {
    const cx::MeaningCodes::Block &block = *codes.blocks[id / cx::MeaningCodes::block_items];
    const size_t at = id % cx::MeaningCodes::block_items;
    float estimated;
    cx::estimate_similarities(coded, block.bits.data() + at, cx::MeaningCodes::block_items, &block.weights[at], 1,
                              &estimated);
    return estimated;
}

/// How many items a search by meaning over compact codes found at least `least` near by their
/// estimates: what it counts for every item but those it compares again in full.
struct EstimatedNear {
    double least = 0;
    Xapian::doccount count = 0;

    void add(double estimate) { count += estimate >= least; }
};

/// `MeaningSource` over the compact codes kept in memory (`MeaningCodes`): the items with a vector
/// walked in order, each weighed by its estimated cosine similarity with the query's vector (at
/// least 0), which `closeness` and `near` add up. The nearest by estimate are compared again in
/// full (`compared_in_full`).
class CodedMeaningSource : public Xapian::PostingSource {
  public:
    CodedMeaningSource(std::shared_ptr<const cx::MeaningCodes> codes, std::shared_ptr<const cx::CodedQuery> query,
                       std::shared_ptr<cx::Closeness> closeness, std::shared_ptr<EstimatedNear> near)
        : codes_(std::move(codes)), query_(std::move(query)), closeness_(std::move(closeness)), near_(std::move(near)) {
    }

    CodedMeaningSource *clone() const override { return new CodedMeaningSource(codes_, query_, closeness_, near_); }

    void init(const Xapian::Database &) override {
        current_ = 0;
        set_maxweight(1.0);
    }

    Xapian::doccount get_termfreq_min() const override { return codes_->count; }
    Xapian::doccount get_termfreq_est() const override { return codes_->count; }
    Xapian::doccount get_termfreq_max() const override { return codes_->count; }

    void next(double) override {
        const Xapian::docid end = codes_->end();
        do ++current_;
        while (current_ < end && codes_->weight(current_) == 0);
    }

    void skip_to(Xapian::docid id, double min_weight) override {
        if (id <= current_) return;
        current_ = id - 1;
        next(min_weight);
    }

    bool check(Xapian::docid id, double) override {
        if (id <= current_) return true;
        // Left on `id` when it fails: `next` moves on past it.
        current_ = id;
        return current_ < codes_->end() && codes_->weight(current_) != 0;
    }

    bool at_end() const override { return current_ >= codes_->end(); }
    Xapian::docid get_docid() const override { return current_; }

    double get_weight() const override {
        const double estimated = estimate(*codes_, *query_, current_);
        closeness_->add(estimated);
        near_->add(estimated);
        // The matcher needs a weight of at least 0; the order of the nearest is the estimates'.
        return std::clamp(estimated, 0.0, 1.0);
    }

    std::string get_description() const override { return "CodedMeaningSource()"; }

  private:
    std::shared_ptr<const cx::MeaningCodes> codes_;
    std::shared_ptr<const cx::CodedQuery> query_;
    std::shared_ptr<cx::Closeness> closeness_;
    std::shared_ptr<EstimatedNear> near_;
    Xapian::docid current_ = 0;
};

/// The `count` best of the candidates offered: the most similar, and of equal ones the first
/// document, as the matcher orders them.
class Best {
  public:
    explicit Best(size_t count) : count_(count) {}

    void offer(Xapian::docid id, double similarity) {
        if (count_ == 0) return;
        const std::pair<Xapian::docid, double> candidate{id, similarity};
        if (heap_.size() == count_) {
            if (!better(candidate, heap_.front())) return;
            std::pop_heap(heap_.begin(), heap_.end(), better);
            heap_.back() = candidate;
        } else {
            heap_.push_back(candidate);
        }
        std::push_heap(heap_.begin(), heap_.end(), better);
    }

    /// The similarity an offer must pass to be kept: the worst kept once full (an offer equal to it
    /// comes later in document order, so it is not better), else below any.
    double floor() const {
        return count_ > 0 && heap_.size() == count_ ? heap_.front().second : -std::numeric_limits<double>::infinity();
    }

    std::vector<std::pair<Xapian::docid, double>> best_first() && {
        std::sort_heap(heap_.begin(), heap_.end(), better);
        return std::move(heap_);
    }

  private:
    static bool better(const std::pair<Xapian::docid, double> &a, const std::pair<Xapian::docid, double> &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    }

    size_t count_;
    /// A heap whose front is the worst kept.
    std::vector<std::pair<Xapian::docid, double>> heap_;
};

/// `ids` of a view of `shards` shards, split by shard, each by its id there: the item `d` of the view
/// is the item `(d - 1) / k + 1` of its shard `(d - 1) % k`, as Xapian numbers a topology's items.
template <typename Ids>
std::vector<std::vector<Xapian::docid>> by_shard(const Ids &ids, size_t shards) {
    std::vector<std::vector<Xapian::docid>> local(shards);
    for (Xapian::docid id : ids) local[(id - 1) % shards].push_back(Xapian::docid((id - 1) / shards + 1));
    return local;
}

/// The view's id of item `id` of shard `shard` of `shards` (`by_shard`'s inverse).
Xapian::docid across_shards(size_t shard, Xapian::docid id, size_t shards) {
    return Xapian::docid((id - 1) * shards + shard + 1);
}

/// The `count` best of `found`, best first (`Best`'s order).
std::vector<std::pair<Xapian::docid, double>> best_of(const std::vector<std::pair<Xapian::docid, double>> &found,
                                                      size_t count) {
    Best best(count);
    for (const auto &[id, similarity] : found) best.offer(id, similarity);
    return std::move(best).best_first();
}

/// How many of the items nearest by estimate a search by meaning over compact codes compares again
/// in full, for a page of `count` (the words' page plus 100): on CACM, every judged question's first
/// ten are then the full comparison's (`RelevanceTests.cacmWithMeaning`).
Xapian::doccount compared_in_full(Xapian::doccount count) { return std::max<Xapian::doccount>(4 * count, 400); }

/// The `count` best of `candidates` (the nearest by estimate, each of which `closeness` and
/// `near` counted by its estimate) by their stored vectors compared in full with `query`, each at
/// least `least_similarity` near. `near` then counts each candidate as compared in full. So does
/// `closeness` when the candidates are `every` item it counted (of every shard's vectors copy, over
/// shard servers), which makes it the full comparison's; otherwise it keeps the estimates, whose
/// mean over the items is the cosines' (a few hundred nearest, whose estimates fall short of their
/// cosines, compared in full among estimates would raise it: by 0.013 on CACM).
std::vector<std::pair<Xapian::docid, double>> compare_in_full(const Xapian::Database &reader,
                                                              const cx::MeaningCodes &codes,
                                                              const cx::CodedQuery &coded,
                                                              const cx::MeaningQuery &query,
                                                              std::vector<Xapian::docid> candidates,
                                                              Xapian::doccount count, double least_similarity,
                                                              Xapian::doccount &near, cx::Closeness &closeness,
                                                              bool every) {
    std::sort(candidates.begin(), candidates.end());
    Best best(count);
    auto value = reader.valuestream_begin(CX_SLOT_MEANING);
    const auto end = reader.valuestream_end(CX_SLOT_MEANING);
    for (Xapian::docid id : candidates) {
        const double estimated = estimate(codes, coded, id);
        near -= estimated >= least_similarity;
        if (value != end) value.skip_to(id);
        if (value == end || value.get_docid() != id || !cx::is_vector(*value)) {
            closeness.remove(estimated);  // deleted since the codes were kept
            continue;
        }
        const double similarity = query.similarity(*value);
        if (every) closeness.replace(estimated, similarity);
        if (similarity < least_similarity) continue;
        ++near;
        best.offer(id, std::min(similarity, 1.0));
    }
    return std::move(best).best_first();
}

/// Which of the 64 items from `first` (a multiple of 64) a scan compares, a bit each: those with a
/// vector (`weights`, their codes' weights, 0 for none), visible (`visible`, null for every item),
/// not expired (`expired`, ascending, read on from `next`, which is left past the 64) and not
/// `excluded`. The groups are asked in ascending order, every one of them.
uint64_t compared(Xapian::docid first, const float *weights, const cx::DocumentBits *visible,
                  const std::vector<Xapian::docid> &expired, size_t &next, Xapian::docid excluded) {
    uint64_t with_vector = 0;
    for (unsigned k = 0; k < 64; ++k) with_vector |= uint64_t(weights[k] != 0) << k;
    uint64_t gone = 0;
    for (; next < expired.size() && expired[next] - first < 64; ++next) gone |= uint64_t(1) << (expired[next] - first);
    uint64_t bits = with_vector & ~gone;
    if (visible != nullptr) bits &= first / 64 < visible->words.size() ? visible->words[first / 64] : 0;
    if (excluded >= first && excluded - first < 64) bits &= ~(uint64_t(1) << (excluded - first));
    return bits;
}

/// The items expired at the request's time, in ascending document ids: those a handle that keeps
/// fields keeps (`expired_items`), else read from the expiration's value stream, which holds only
/// the items that can expire.
std::shared_ptr<const std::vector<Xapian::docid>> expired_now(cx_database &database,
                                                              const cx_search_request &request) {
    if (cx::keeps_fields(database, request))
        if (auto kept = cx::expired_items(database, request.now_ms)) return kept;
    auto expired = std::make_shared<std::vector<Xapian::docid>>();
    const Xapian::Database &reader = database.reader;
    const double now = double(request.now_ms);
    for (auto value = reader.valuestream_begin(cx::slot::expiration);
         value != reader.valuestream_end(cx::slot::expiration); ++value)
        if (Xapian::sortable_unserialise(*value) <= now) expired->push_back(value.get_docid());
    return expired;
}

/// The first pass of a search by meaning over kept compact codes: the items nearest by estimate,
/// best first (ties by document id), and how many are at least `least_similarity` near by estimate.
struct FirstPass {
    std::vector<std::pair<Xapian::docid, double>> nearest;
    Xapian::doccount near = 0;
};

/// The first pass without the matcher: each item's kept code estimated, the `depth` nearest kept;
/// the items the search may not see (`visible`, null for none hidden), the `expired` ones
/// (ascending) and `excluded` skipped, each estimated one added to `closeness`.
FirstPass walk_codes(const cx::MeaningCodes &codes, const cx::CodedQuery &coded, const cx::DocumentBits *visible,
                     const std::vector<Xapian::docid> &expired, Xapian::docid excluded, Xapian::doccount depth,
                     double least_similarity, cx::Closeness &closeness) {
    size_t next_expired = 0;
    FirstPass pass;
    Best first(depth);
    std::vector<float> estimates(cx::MeaningCodes::block_items);
    // The items are walked 64 at a time, as a mask of those the search compares (`compared`),
    // with no branch an item's visibility or expiration decides; an estimate is offered only
    // when it passes the worst kept, which most do not.
    double floor = first.floor();
    for (size_t b = 0; b < codes.blocks.size(); ++b) {
        const cx::MeaningCodes::Block &block = *codes.blocks[b];
        cx::estimate_similarities(coded, block.bits.data(), cx::MeaningCodes::block_items, block.weights.data(),
                                  cx::MeaningCodes::block_items, estimates.data());
        const Xapian::docid base = Xapian::docid(b * cx::MeaningCodes::block_items);
        for (size_t group = 0; group < cx::MeaningCodes::block_items; group += 64) {
            uint64_t left = compared(base + Xapian::docid(group), &block.weights[group], visible, expired,
                                     next_expired, excluded);
            for (; left != 0; left &= left - 1) {
                const size_t at = group + size_t(__builtin_ctzll(left));
                const double estimated = estimates[at];
                closeness.add(estimated);
                pass.near += estimated >= least_similarity;
                if (estimated > floor) {
                    first.offer(base + Xapian::docid(at), estimated);
                    floor = first.floor();
                }
            }
        }
    }
    pass.nearest = std::move(first).best_first();
    return pass;
}

/// The first pass through the matcher, over the items `among` selects that a search of `request`
/// may see now: each one's kept code estimated, the `depth` nearest kept by the matcher, their
/// weights the estimates (at least 0), as the matcher orders them; each estimated one added to
/// `closeness`.
FirstPass match_codes(cx_database &database, cx::Snapshot &snapshot, const cx_search_request &request,
                      const Xapian::Query &among, std::shared_ptr<const cx::MeaningCodes> codes,
                      std::shared_ptr<const cx::CodedQuery> coded, Xapian::doccount depth, double least_similarity,
                      bool counted, const std::shared_ptr<cx::Closeness> &closeness) {
    const Xapian::Database &reader = database.reader;
    Xapian::Enquire enquire(reader);
    const auto near = std::make_shared<EstimatedNear>(EstimatedNear{least_similarity, 0});
    const Xapian::Query meaning((new CodedMeaningSource(std::move(codes), std::move(coded), closeness, near))->release());
    // The selection filters and weighs nothing; the weights are the source's. (Under BoolWeight
    // the matcher takes every weight for 0, and the cutoff then drops every match.)
    cx::set_matchable_query(
        enquire, reader,
        Xapian::Query(Xapian::Query::OP_FILTER, meaning, cx::visible_now(database, snapshot, request, among, false)));
    enquire.set_docid_order(Xapian::Enquire::ASCENDING);
    // Estimates: the nearest few hundred, however near, are compared in full.
    enquire.set_cutoff(0, 0);
    const Xapian::MSet mset = enquire.get_mset(0, depth, counted ? reader.get_doccount() : 0);
    FirstPass pass;
    for (auto it = mset.begin(); it != mset.end(); ++it) pass.nearest.emplace_back(*it, it.get_weight());
    pass.near = near->count;
    return pass;
}

/// The document ids of a first pass's nearest.
std::vector<Xapian::docid> ids_of(const std::vector<std::pair<Xapian::docid, double>> &nearest) {
    std::vector<Xapian::docid> ids;
    for (const auto &[id, estimated] : nearest) ids.push_back(id);
    return ids;
}

/// `nearest` over every item without the matcher, with no codes kept: each vector read from the
/// value stream and compared; the items the search may not see (`visible`, null for none hidden),
/// the `expired` ones (ascending) and `excluded` skipped, each compared one added to `closeness`.
std::vector<std::pair<Xapian::docid, double>> scan(const Xapian::Database &reader, const cx::DocumentBits *visible,
                                                   const std::vector<Xapian::docid> &expired, Xapian::docid excluded,
                                                   const cx::MeaningQuery &query, Xapian::doccount count,
                                                   double least_similarity, Xapian::doccount *matches,
                                                   cx::Closeness &closeness) {
    size_t next_expired = 0;
    Xapian::doccount near = 0;
    Best best(count);
    for (auto value = reader.valuestream_begin(CX_SLOT_MEANING); value != reader.valuestream_end(CX_SLOT_MEANING);
         ++value) {
        const Xapian::docid id = value.get_docid();
        while (next_expired < expired.size() && expired[next_expired] < id) ++next_expired;
        const bool gone = next_expired < expired.size() && expired[next_expired] == id;
        if (gone || id == excluded || (visible != nullptr && !visible->contains(id)) || !cx::is_vector(*value))
            continue;
        const double similarity = query.similarity(*value);
        closeness.add(similarity);
        if (similarity < least_similarity) continue;
        ++near;
        best.offer(id, std::min(similarity, 1.0));
    }
    if (matches != nullptr) *matches = near;
    return std::move(best).best_first();
}

/// The items `selection` matches that a search of `request` may see now, asked of `database`'s shard
/// servers: each shard's, by its own ids (ascending).
std::vector<std::vector<Xapian::docid>> shard_selection(cx_database &database, cx::Snapshot &snapshot,
                                                        const cx_search_request &request,
                                                        const Xapian::Query &selection) {
    const Xapian::Database &reader = database.reader;
    Xapian::Enquire enquire(reader);
    cx::set_counting_query(enquire, reader, cx::visible_now(database, snapshot, request, selection, false));
    enquire.set_docid_order(Xapian::Enquire::ASCENDING);
    const Xapian::MSet mset = enquire.get_mset(0, std::max<Xapian::doccount>(1, reader.get_doccount()));
    return by_shard(mset, database.shards.size());
}

/// The unique term `excluded`'s document in `reader`, or 0.
Xapian::docid document_of(const Xapian::Database &reader, const std::string &excluded) {
    if (excluded.empty()) return 0;
    Xapian::PostingIterator posting = reader.postlist_begin(excluded);
    return posting != reader.postlist_end(excluded) ? *posting : 0;
}

/// `selection` (null: every item) less the item of unique term `excluded` (empty: none).
Xapian::Query selected_less(const Xapian::Query *selection, const std::string &excluded) {
    Xapian::Query selected = selection != nullptr ? *selection : cx::match_all();
    if (!excluded.empty()) selected = Xapian::Query(Xapian::Query::OP_AND_NOT, selected, Xapian::Query(excluded));
    return selected;
}

/// The first pass over one database's kept `codes`, `nearest`'s way: without the matcher when
/// nothing is selected and the search's visibility is a set of items, else through it.
FirstPass first_pass(cx_database &database, cx::Snapshot &snapshot, const cx_search_request &request,
                     const Xapian::Query *selection, const std::string &excluded,
                     const std::shared_ptr<const cx::MeaningCodes> &codes,
                     const std::shared_ptr<const cx::CodedQuery> &coded, Xapian::doccount depth,
                     double least_similarity, bool counted, cx::Closeness &closeness) {
    std::shared_ptr<const cx::DocumentBits> visible;
    if (selection == nullptr && cx::visible_set(database, snapshot, request, visible))
        return walk_codes(*codes, *coded, visible.get(), *expired_now(database, request),
                          document_of(database.reader, excluded), depth, least_similarity, closeness);
    const auto shared = std::make_shared<cx::Closeness>();
    FirstPass pass = match_codes(database, snapshot, request, selected_less(selection, excluded), codes, coded, depth,
                                 least_similarity, counted, shared);
    closeness.merge(*shared);
    return pass;
}

/// `nearest` over one database with no codes kept, each vector compared in full: without the
/// matcher when nothing is selected and the search's visibility is a set of items, else through it.
std::vector<std::pair<Xapian::docid, double>> compared_fully(cx_database &database, cx::Snapshot &snapshot,
                                                             const cx_search_request &request,
                                                             const Xapian::Query *selection,
                                                             const std::string &excluded, const float *vector,
                                                             uint32_t dimensions, Xapian::doccount count,
                                                             double least_similarity, Xapian::doccount *matches,
                                                             cx::Closeness &closeness) {
    const Xapian::Database &reader = database.reader;
    const auto query = std::make_shared<const cx::MeaningQuery>(vector, dimensions);
    std::shared_ptr<const cx::DocumentBits> visible;
    if (selection == nullptr && cx::visible_set(database, snapshot, request, visible))
        return scan(reader, visible.get(), *expired_now(database, request), document_of(reader, excluded), *query,
                    count, least_similarity, matches, closeness);
    const auto shared = std::make_shared<cx::Closeness>();
    Xapian::Enquire enquire(reader);
    // The selection filters and weighs nothing; the weights are the source's. (Under BoolWeight
    // the matcher takes every weight for 0, and the cutoff then drops every match.)
    cx::set_matchable_query(
        enquire, reader,
        Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query((new MeaningSource(query, shared))->release()),
                      cx::visible_now(database, snapshot, request, selected_less(selection, excluded), false)));
    enquire.set_docid_order(Xapian::Enquire::ASCENDING);
    enquire.set_cutoff(0, least_similarity);
    const Xapian::MSet mset = enquire.get_mset(0, count, matches != nullptr ? reader.get_doccount() : 0);
    std::vector<std::pair<Xapian::docid, double>> found;
    for (auto it = mset.begin(); it != mset.end(); ++it) found.emplace_back(*it, it.get_weight());
    if (matches != nullptr) *matches = mset.get_matches_estimated();
    closeness.merge(*shared);
    return found;
}

/// `nearest` over a view of shard servers: each shard's vectors copy asked as one index is (its
/// kept codes, visibility and expired items), a selection given to it as the items the servers
/// match on its shard, and the answers numbered as the shards number them (the item `d` of shard
/// `s` of `k` is `(d - 1) × k + s + 1`). With codes kept for every copy, the copies' estimates take
/// their mean residual together, as one index's do, and the nearest by estimate across them are
/// compared in full: the answer is one index's of the same items.
std::vector<std::pair<Xapian::docid, double>> nearest_over_copies(
    cx_database &database, cx::Snapshot &snapshot, const cx_search_request &request, const Xapian::Query *selection,
    const std::string &excluded, const float *vector, uint32_t dimensions, Xapian::doccount count,
    double least_similarity, Xapian::doccount *matches, cx::Closeness *closeness_out,
    const std::vector<Xapian::docid> *selected_ids) {
    const std::vector<std::shared_ptr<cx_database>> &copies = database.meaning_copies->each_copy;
    const size_t shards = copies.size();
    std::vector<std::optional<Xapian::Query>> among(shards);
    if (selection != nullptr) {
        std::vector<std::vector<Xapian::docid>> selected = selected_ids != nullptr
                                                               ? by_shard(*selected_ids, shards)
                                                               : shard_selection(database, snapshot, request, *selection);
        for (size_t shard = 0; shard < shards; ++shard) among[shard] = cx::id_query(std::move(selected[shard]));
    }
    std::vector<std::shared_ptr<const cx::MeaningCodes>> codes(shards);
    bool coded = true;
    for (size_t shard = 0; shard < shards && coded; ++shard) {
        codes[shard] = cx::keeps_fields(*copies[shard], request) ? cx::meaning_codes(*copies[shard], dimensions) : nullptr;
        coded = codes[shard] != nullptr;
    }
    cx::Closeness closeness;
    Xapian::doccount near = 0;
    std::vector<std::pair<Xapian::docid, double>> found;
    if (!coded) {
        for (size_t shard = 0; shard < shards; ++shard) {
            Xapian::doccount shard_near = 0;
            for (const auto &[id, similarity] :
                 compared_fully(*copies[shard], *cx::snapshot(*copies[shard]), request,
                                among[shard] ? &*among[shard] : nullptr, excluded, vector, dimensions, count,
                                least_similarity, matches != nullptr ? &shard_near : nullptr, closeness))
                found.emplace_back(across_shards(shard, id, shards), similarity);
            near += shard_near;
        }
    } else {
        // The mean residual of every copy's items, as one index of them keeps it.
        std::vector<double> sum(dimensions, 0);
        double items = 0;
        for (const auto &kept : codes) {
            for (uint32_t j = 0; j < dimensions && j < kept->residual.size(); ++j)
                sum[j] += double(kept->residual[j]) * kept->count;
            items += kept->count;
        }
        std::vector<float> residual(dimensions);
        for (uint32_t j = 0; j < dimensions; ++j) residual[j] = items > 0 ? float(sum[j] / items) : 0;
        const auto query_code = std::make_shared<const cx::CodedQuery>(vector, dimensions, residual.data());
        const Xapian::doccount depth = compared_in_full(count);
        std::vector<std::pair<Xapian::docid, double>> estimated;
        for (size_t shard = 0; shard < shards; ++shard) {
            FirstPass pass = first_pass(*copies[shard], *cx::snapshot(*copies[shard]), request,
                                        among[shard] ? &*among[shard] : nullptr, excluded, codes[shard], query_code,
                                        depth, least_similarity, matches != nullptr, closeness);
            for (const auto &[id, estimate] : pass.nearest) estimated.emplace_back(across_shards(shard, id, shards), estimate);
            near += pass.near;
        }
        estimated = best_of(estimated, depth);
        const bool every = estimated.size() >= closeness.count;
        std::vector<std::vector<Xapian::docid>> candidates = by_shard(ids_of(estimated), shards);
        const cx::MeaningQuery query(vector, dimensions);
        for (size_t shard = 0; shard < shards; ++shard)
            for (const auto &[id, similarity] :
                 compare_in_full(copies[shard]->reader, *codes[shard], *query_code, query, std::move(candidates[shard]),
                                 count, least_similarity, near, closeness, every))
                found.emplace_back(across_shards(shard, id, shards), similarity);
    }
    found = best_of(found, count);
    if (matches != nullptr) *matches = near;
    if (closeness_out != nullptr) *closeness_out = closeness;
    return found;
}

/// Appends the subtree at `index` to `out`, less the plain words of its top AND.
void append_selection(const cx_query_node *nodes, size_t count, size_t index, std::vector<cx_query_node> &out) {
    cx_query_node all{};
    all.kind = CX_NODE_ALL;
    if (cx::is_relaxable(nodes, count, index)) {
        out.push_back(all);
        return;
    }
    const size_t end = cx::subtree_end(nodes, count, index);
    if (nodes[index].kind != CX_NODE_AND) {
        out.insert(out.end(), nodes + index, nodes + end);
        return;
    }
    const size_t group = out.size();
    out.push_back(nodes[index]);
    out[group].child_count = 0;
    for (size_t child : cx::children_of(nodes, count, index)) {
        if (cx::is_relaxable(nodes, count, child)) continue;
        out.insert(out.end(), nodes + child, nodes + cx::subtree_end(nodes, count, child));
        ++out[group].child_count;
    }
    if (out[group].child_count == 0) out.back() = all;
}

}  // namespace

namespace cx {

bool compares_meaning(const cx_database &database) {
    // A shard server runs no posting source of Searchlight's: shards read through servers are
    // compared through their vectors copies. Local shards are compared as one index is, each
    // through its own values, in a view, which knows its shards (`matching`).
    if (database.meaning_copies) return true;
    return !database.remote && (!database.sharded || !database.shards.empty());
}

bool searches_by_meaning(const cx_database &database, const cx_search_request &request) {
    if (request.meaning == nullptr || request.meaning_dimensions == 0 || !(request.semantic_ratio > 0)) return false;
    if (!compares_meaning(database)) return false;
    if (request.sort_key_count > 0 && request.sort_keys[0].slot != CX_SLOT_RELEVANCE) return false;
    const Xapian::Database &vectors = database.meaning_copies ? database.meaning_copies->reader : database.reader;
    return vectors.get_value_freq(CX_SLOT_MEANING) > 0;
}

std::vector<cx_query_node> selection_nodes(const cx_query_node *nodes, size_t count) {
    std::vector<cx_query_node> out;
    if (nodes == nullptr || count == 0) return out;
    // A root exclusion keeps its first child less its plain words, and excludes the rest as before.
    if (nodes[0].kind == CX_NODE_AND_NOT && nodes[0].child_count > 0) {
        out.push_back(nodes[0]);
        append_selection(nodes, count, 1, out);
        const size_t rest = cx::subtree_end(nodes, count, 1);
        out.insert(out.end(), nodes + rest, nodes + count);
        return out;
    }
    append_selection(nodes, count, 0, out);
    return out;
}

std::vector<std::pair<Xapian::docid, double>> nearest(cx_database &database, Snapshot &snapshot,
                                                      const cx_search_request &request, const Xapian::Query *selection,
                                                      const std::string &excluded, const float *vector,
                                                      uint32_t dimensions, Xapian::doccount count,
                                                      double least_similarity, Xapian::doccount *matches,
                                                      cx::Closeness *closeness_out,
                                                      const std::vector<Xapian::docid> *selected) {
    if (database.meaning_copies)
        return nearest_over_copies(database, snapshot, request, selection, excluded, vector, dimensions, count,
                                   least_similarity, matches, closeness_out, selected);
    // The selected items as read, rather than matched again.
    std::optional<Xapian::Query> listed;
    if (selection != nullptr && selected != nullptr && !database.sharded) selection = &listed.emplace(id_query(*selected));
    const std::shared_ptr<const MeaningCodes> codes =
        keeps_fields(database, request) ? cx::meaning_codes(database, dimensions) : nullptr;
    Closeness closeness;
    if (matches != nullptr) *matches = 0;
    std::vector<std::pair<Xapian::docid, double>> found;
    if (count > 0 || matches != nullptr) {
        if (codes) {
            const auto coded = std::make_shared<const CodedQuery>(vector, dimensions, codes->residual.data());
            FirstPass pass = first_pass(database, snapshot, request, selection, excluded, codes, coded,
                                        compared_in_full(count), least_similarity, matches != nullptr, closeness);
            const bool every = pass.nearest.size() >= closeness.count;
            found = compare_in_full(database.reader, *codes, *coded, MeaningQuery(vector, dimensions),
                                    ids_of(pass.nearest), count, least_similarity, pass.near, closeness, every);
            if (matches != nullptr) *matches = pass.near;
        } else {
            found = compared_fully(database, snapshot, request, selection, excluded, vector, dimensions, count,
                                   least_similarity, matches, closeness);
        }
    }
    if (closeness_out != nullptr) *closeness_out = closeness;
    return found;
}

namespace {

/// The unique terms of the items `ids` of a shard read through a shard server, from its vectors
/// copy `copy`: what a shard server knows the items by.
Xapian::Query unique_terms(const Xapian::Database &copy, const std::vector<Xapian::docid> &ids) {
    std::vector<Xapian::Query> uniques;
    for (Xapian::docid id : ids) {
        auto term = copy.termlist_begin(id);
        term.skip_to(prefix::unique);
        if (term != copy.termlist_end(id) && (*term).compare(0, prefix::unique.size(), prefix::unique) == 0)
            uniques.emplace_back(*term);
    }
    return Xapian::Query(Xapian::Query::OP_OR, uniques.begin(), uniques.end());
}

}  // namespace

std::vector<Xapian::Document> documents(const cx_database &database, const std::vector<Xapian::docid> &ids) {
    std::vector<Xapian::Document> found(ids.size());
    if (!database.remote || database.shards.empty()) {
        // Items of the revision read: opened as Xapian opens its matches' documents, without
        // reading each one's length to learn that it exists.
        for (size_t i = 0; i < ids.size(); ++i) found[i] = database.reader.get_document(ids[i], Xapian::DOC_ASSUME_VALID);
        return found;
    }
    // Xapian numbers the items of `n` shards in turn: item `d` of shard `s` is `(d - 1) × n + s + 1`.
    const size_t shards = database.shards.size();
    const auto local = [shards](Xapian::docid id) { return Xapian::docid((id - 1) / shards + 1); };
    // Read from the vectors copies where they hold the item's data, else from its server: also when a
    // copy changed under the read (its replica took a batch, or switched to a new copy), for the
    // servers hold the view's batch until it is reopened.
    std::vector<bool> read(ids.size(), false);
    if (database.meaning_copies) {
        std::vector<bool> changed(shards, false);
        for (size_t i = 0; i < ids.size(); ++i) {
            const size_t shard = (ids[i] - 1) % shards;
            if (changed[shard]) continue;
            try {
                found[i] = database.meaning_copies->shards[shard].get_document(local(ids[i]));
                read[i] = !found[i].get_data().empty();
            } catch (const Xapian::DocNotFoundError &) {
            } catch (const Xapian::DatabaseError &) {
                // Modified, damaged while being rewritten, or gone: the copy's other items from its server.
                changed[shard] = true;
            }
        }
    }
    for_each_shard(database, [&](size_t shard) {
        for (size_t i = 0; i < ids.size(); ++i)
            if (!read[i] && (ids[i] - 1) % shards == shard) found[i] = database.shards[shard].get_document(local(ids[i]));
    });
    return found;
}

std::vector<Xapian::docid> matching(const cx_database &database, const Xapian::Query &query,
                                    const std::vector<Xapian::docid> &ids) {
    if (ids.empty()) return {};
    // A shard server knows the items by their unique terms, which their vectors copies hold.
    if (database.remote && !database.meaning_copies) return {};
    const auto matched = [](const Xapian::Database &reader, const Xapian::Query &query, const Xapian::Query &among,
                            size_t count) {
        Xapian::Enquire enquire(reader);
        set_counting_query(enquire, reader, Xapian::Query(Xapian::Query::OP_FILTER, query, among));
        const Xapian::MSet mset = enquire.get_mset(0, Xapian::doccount(count));
        return std::vector<Xapian::docid>(mset.begin(), mset.end());
    };
    const size_t shards = database.shards.size();
    if (shards <= 1 && !database.remote) {
        std::vector<Xapian::docid> found = matched(database.reader, query, id_query(ids), ids.size());
        std::sort(found.begin(), found.end());
        return found;
    }
    // Each shard asked about its own items (a posting source of ids sees each shard with its own),
    // each server only about the terms it may hold, and all at once.
    const std::vector<std::vector<Xapian::docid>> local = by_shard(ids, shards);
    std::vector<std::vector<Xapian::docid>> each(shards);
    // A query counts its references without atomics: asked at once, each thread reads a copy of its own.
    const bool at_once = asks_shards_at_once(database);
    const std::string asked = at_once ? query.serialise() : std::string();
    for_each_shard(database, [&](size_t shard) {
        if (local[shard].empty()) return;
        const Xapian::Query among = database.remote ? unique_terms(database.meaning_copies->shards[shard], local[shard])
                                                    : id_query(local[shard]);
        each[shard] = matched(database.shards[shard], at_once ? Xapian::Query::unserialise(asked) : query, among,
                              local[shard].size());
    });
    std::vector<Xapian::docid> found;
    for (size_t shard = 0; shard < shards; ++shard)
        for (Xapian::docid id : each[shard]) found.push_back(across_shards(shard, id, shards));
    std::sort(found.begin(), found.end());
    return found;
}

std::vector<float> stored_vector(const Xapian::Database &reader, Xapian::docid id) {
    const std::string value = reader.get_document(id).get_value(CX_SLOT_MEANING);
    if (value.size() <= sizeof(float)) return {};
    float scale;
    std::memcpy(&scale, value.data(), sizeof(float));
    std::vector<float> vector(value.size() - sizeof(float));
    double norm = 0;
    for (size_t i = 0; i < vector.size(); ++i) {
        vector[i] = scale * float(static_cast<int8_t>(value[sizeof(float) + i]));
        norm += double(vector[i]) * double(vector[i]);
    }
    if (norm > 0)
        for (float &component : vector) component = float(component / std::sqrt(norm));
    return vector;
}

}  // namespace cx
