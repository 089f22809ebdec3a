// What spelling.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"
#include "read.hpp"

namespace cx {

/// The most typos a word of `letters` letters (code points) may hold (SPEC §2.1): none under 5,
/// one from 5 to 8, two from 9. A typo is a letter added, missing or changed, or two neighbours
/// swapped, never in the first letter.
unsigned typo_limit(size_t letters);

/// Whether `query` matches an item `request` may see, now.
bool matches_visible_item(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query);

/// The spelling correction of `word` (folded) for `request`: the nearest word of the spelling
/// table within the typo rules (`typo_limit`, the first letter kept) that occurs in an item the
/// request may see, or empty.
std::string visible_suggestion(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word);

}  // namespace cx
