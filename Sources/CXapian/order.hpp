// What order.cpp offers the other files of the shim.
#pragma once

#include "errors.hpp"

namespace cx {

/// Orders `enquire`'s results as `request` asks: by relevance alone, by its keys then relevance,
/// or by relevance then its keys. An item without a key's value comes after those with one,
/// ascending or descending. In a topology (`sharded`), equal scores come in the items' digest
/// order.
void set_order(Xapian::Enquire &enquire, const cx_search_request &request, bool sharded);

/// Orders `enquire`'s results by `request`'s first key's value alone, with relevance: what remote
/// shards can do (Xapian 1.4 sends them a value slot, not a key maker). False when the request has
/// no key.
bool sort_by_first_key(Xapian::Enquire &enquire, const cx_search_request &request);

}  // namespace cx
