// Recorded views as a ranking boost: the viewed items and their boosts, held in memory.
//
// As a value posting source, the boost made Xapian read the value stream beside every candidate
// (single-word p99 5.4 → 7.3 ms at 200,000 items with 4 % of them viewed). Here the viewed items
// are read once into a sorted list, kept in the index's snapshot (`Snapshot`), and the matcher
// moves through it in memory.

#include "views.hpp"

#include <algorithm>

#include "database.hpp"
#include "read.hpp"
#include "schema.hpp"

namespace cx {

/// The viewed items, in document order, with their boosts (`view_boost`, 0 to 1).
struct ViewBoosts {
    std::vector<Xapian::docid> documents;
    std::vector<double> boosts;
    double greatest = 0;
};

namespace {

std::shared_ptr<const ViewBoosts> read_boosts(const Xapian::Database &reader) {
    auto boosts = std::make_shared<ViewBoosts>();
    for (auto it = reader.valuestream_begin(slot::view_boost); it != reader.valuestream_end(slot::view_boost); ++it) {
        const double boost = Xapian::sortable_unserialise(*it);
        boosts->documents.push_back(it.get_docid());
        boosts->boosts.push_back(boost);
        boosts->greatest = std::max(boosts->greatest, boost);
    }
    return boosts;
}

/// The matcher's view of a `ViewBoosts`: a posting list whose weight is each item's boost.
class ViewBoostSource final : public Xapian::PostingSource {
  public:
    explicit ViewBoostSource(std::shared_ptr<const ViewBoosts> boosts) : boosts_(std::move(boosts)) {}

    Xapian::doccount get_termfreq_min() const override { return size(); }
    Xapian::doccount get_termfreq_est() const override { return size(); }
    Xapian::doccount get_termfreq_max() const override { return size(); }

    void init(const Xapian::Database &) override {
        position_ = 0;
        started_ = false;
        set_maxweight(boosts_->greatest);
    }

    void next(double) override {
        if (started_) ++position_;
        started_ = true;
    }

    void skip_to(Xapian::docid did, double) override {
        const auto &documents = boosts_->documents;
        if (started_ && (position_ >= documents.size() || documents[position_] >= did)) return;
        position_ = std::lower_bound(documents.begin() + position_, documents.end(), did) - documents.begin();
        started_ = true;
    }

    bool at_end() const override { return started_ && position_ >= boosts_->documents.size(); }
    Xapian::docid get_docid() const override { return boosts_->documents[position_]; }
    double get_weight() const override { return boosts_->boosts[position_]; }
    Xapian::PostingSource *clone() const override { return new ViewBoostSource(boosts_); }
    std::string name() const override { return "searchlight.ViewBoost"; }

  private:
    std::shared_ptr<const ViewBoosts> boosts_;
    size_t position_ = 0;
    bool started_ = false;

    Xapian::doccount size() const { return static_cast<Xapian::doccount>(boosts_->documents.size()); }
};

}  // namespace

const MostViewed &most_viewed(cx_database &database, Snapshot &snapshot) {
    if (snapshot.most_viewed) return *snapshot.most_viewed;
    if (!snapshot.views) snapshot.views = read_boosts(database.reader);
    const ViewBoosts &views = *snapshot.views;
    auto most = std::make_shared<MostViewed>();
    for (size_t i = 0; i < views.documents.size(); ++i) most->items.emplace_back(views.documents[i], views.boosts[i]);
    const auto greater = [](const auto &a, const auto &b) { return a.second > b.second; };
    if (most->items.size() > most_viewed_count) {
        const auto cut = most->items.begin() + long(most_viewed_count);
        std::nth_element(most->items.begin(), cut, most->items.end(), greater);
        // No item past the cut has a greater boost than the one at it.
        most->rest = cut->second;
        most->items.resize(most_viewed_count);
    }
    snapshot.most_viewed = most;
    return *most;
}

Xapian::Query view_boosts(cx_database &database, Snapshot &snapshot) {
    const Xapian::Database &reader = database.reader;
    // A posting source sees each shard with its own document ids, and a shard server knows
    // Xapian's own only: this one reads the same boosts from the value stream.
    if (database.sharded) return Xapian::Query((new Xapian::ValueWeightPostingSource(slot::view_boost))->release());
    if (!snapshot.views) snapshot.views = read_boosts(reader);
    return Xapian::Query((new ViewBoostSource(snapshot.views))->release());
}

}  // namespace cx
