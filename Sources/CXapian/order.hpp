// What order.cpp offers the other files of the shim.
#pragma once

#include <optional>
#include <vector>

#include "database.hpp"

namespace cx {

/// Orders `enquire`'s results as `request` asks: by relevance alone, by its keys then relevance,
/// or by relevance then its keys. An item without a key's value comes after those with one,
/// ascending or descending. Ties come in document id order, which a topology shares with one index
/// of the same items (its writer gives each item the id one index would).
void set_order(Xapian::Enquire &enquire, const cx_search_request &request);

/// Orders `enquire`'s results by `request`'s first key's value alone, with relevance: what remote
/// shards can do (Xapian 1.4 sends them a value slot, not a key maker). False when the request has
/// no key.
bool sort_by_first_key(Xapian::Enquire &enquire, const cx_search_request &request);

/// A page of an index with remote shards sorted by one key ascending: its documents, their
/// percentages, and the count of matches.
struct SortedPage {
    std::vector<Xapian::Document> documents;
    std::vector<int32_t> percents;
    Xapian::doccount matches = 0;
    bool estimated = false;
};

/// The page `request` asks of `enquire` (its query as built) when the request sorts by one key
/// ascending, then relevance, and the index has remote shards: they take no key maker, and sorted
/// by a value ascending Xapian puts the items without one first, where one index puts them last.
/// So the items with a value are sorted first, then those without one follow by relevance, with
/// the percentages one search of both rates, for a query of `parts` weighed parts (`weighed_parts`).
/// Nothing for any other order, or when the percentages cannot be rated.
std::optional<SortedPage> ascending_on_shards(Xapian::Enquire &enquire, const cx_search_request &request,
                                              Xapian::doccount check_at_least, unsigned parts);

/// A filter that keeps the page `request` asks for when its first key is a number: the items whose
/// value of it is among the best of those holding it (by the key's kept ranks, `cx::ranks`), so
/// many that about eight pages of the query's `matches` would pass, were the matches spread over
/// the values as every item is (a `column_range` over the key's kept column). Nothing when the
/// first key is relevance or a distance, when `matches` are fewer than twenty pages, when the
/// filter would keep half the items or more, or when the column cannot be kept.
/// The page is the whole query's only when at least `offset + limit` matches pass: the caller
/// checks that, and otherwise sorts every match.
struct PageBound {
    Xapian::Query filter;
    /// The share of all items the filter keeps, about.
    double kept;
};
std::optional<PageBound> page_bound(cx_database &database, const cx_search_request &request,
                                    Xapian::doccount matches);

/// Runs `enquire`, a page sorted by a number first, over only the matches that `page_bound` keeps,
/// for a reader that searches again and again (it keeps the key's ranks) when the query matches
/// far more items than the page: `matches` is then their count, exact up to a thousand past the
/// page and beyond that estimated from how many passed the filter. `counted`, when given, is a
/// count of the query's matches already made (for its facets): it is used instead of counting
/// again. False, with `enquire` as it was, when that does not apply or fewer matches than the page
/// passed the bound.
bool run_bounded(cx_database &database, const cx_search_request &request, Xapian::Enquire &enquire,
                 const Xapian::MSet *counted, Xapian::MSet &mset, Xapian::doccount &matches);

}  // namespace cx
