// What views.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"
#include "read.hpp"

namespace cx {

/// A posting source over the viewed items, weighing each by its boost (`view_boost`), as
/// `snapshot` holds them.
Xapian::Query view_boosts(cx_database &database, Snapshot &snapshot);

/// The viewed items of greatest boost, and the greatest boost of the others (0 when there are none).
struct MostViewed {
    std::vector<std::pair<Xapian::docid, double>> items;
    double rest = 0;
};

/// How many of the most viewed items `most_viewed` gives.
constexpr size_t most_viewed_count = 256;

/// The `most_viewed_count` viewed items of greatest boost, as `snapshot` holds them (read once per
/// snapshot).
const MostViewed &most_viewed(cx_database &database, Snapshot &snapshot);

}  // namespace cx
