// What views.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"
#include "read.hpp"

#include <memory>
#include <mutex>
#include <vector>

namespace cx {

/// `query` with `weight` times each matching item's views boost (`view_boost`) added to its weight,
/// as `snapshot` holds the boosts: ANDed with a part that every item matches, weighing each by its
/// boost (0 without views). Xapian's percentages count it as one more part of the query, which
/// every result matches: views never lower a percentage.
Xapian::Query with_view_boosts(cx_database &database, Snapshot &snapshot, const Xapian::Query &query, double weight);

/// The viewed items, in document order, with their boosts (`view_boost`, 0 to 1).
struct ViewBoosts {
    std::vector<Xapian::docid> documents;
    std::vector<double> boosts;
    double greatest = 0;

    /// The boost of item `id`: 0 when it has no views.
    double boost(Xapian::docid id) const;

    /// Positions in `documents`, from the greatest boost to the least: ordered on first need (a
    /// search read from the impact tiers), once.
    const std::vector<uint32_t> &by_boost() const;

  private:
    mutable std::once_flag ordered_;
    mutable std::vector<uint32_t> by_boost_;
};

/// The viewed items and their boosts, as `snapshot` holds them (read once per snapshot).
std::shared_ptr<const ViewBoosts> view_boosts_of(cx_database &database, Snapshot &snapshot);

}  // namespace cx
