// What spelling.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"
#include "read.hpp"

namespace cx {

/// Whether `query` matches an item `request` may see, now.
bool matches_visible_item(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query);

/// The spelling correction of `word` (folded) for `request`: the nearest word of the spelling
/// table within the rules of typos (typos.hpp, the first letter kept) that occurs in an item the
/// request may see, or empty.
std::string visible_suggestion(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word);

}  // namespace cx
