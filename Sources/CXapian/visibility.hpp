// What visibility.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"
#include "read.hpp"

namespace cx {

/// `query` limited to the items `request`'s domain and scope may see, as `snapshot` holds them.
Xapian::Query visible_only(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                           const Xapian::Query &query);

/// `query` limited to what `request` may see (`visible_only`) and to items not expired at its time.
Xapian::Query visible_now(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query);

}  // namespace cx
