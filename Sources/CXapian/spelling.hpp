// What spelling.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"
#include "read.hpp"

namespace cx {

/// Whether `query` matches an item `request` may see, now. Asked once a snapshot for the same
/// query, caller and time (`Snapshot::visible_matches`): the meaning model's reading of a search's
/// words (`cx_read_words`) asks it of each word, and the search of its words again when nothing
/// matches them all, each a round trip over shard servers. A query any of whose alternatives
/// (`OP_OR`, `OP_SYNONYM`) is known to match such an item does too.
bool matches_visible_item(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query);

/// The languages a query of `request` is read in (SPEC §2.5): the stemmings (`cx::stemmings`) of the
/// languages it names (`cx_search_request::languages`), else of the languages of the items it may
/// see, now. Where the index holds items of one language alone, that
/// language, without looking further: no search learns of another's items by its reading.
std::vector<std::string> reading_languages(cx_database &database, Snapshot &snapshot, const cx_search_request &request);

/// The spelling correction of `word` (folded) for `request`: the nearest word of the spelling
/// table within the rules of typos (typos.hpp, the first letter kept) that occurs in an item the
/// request may see, or empty.
std::string visible_suggestion(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word);

/// The word of the items' text (`text_words`) within the rules of typos that an item `request` may
/// see holds, nearest then the most frequent, for `word` (folded), or empty: what a search by
/// meaning reads in place of a word no item holds (`cx_read_words`).
std::string visible_correction(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word);

}  // namespace cx
