// What views.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"
#include "read.hpp"

namespace cx {

/// A posting source over the viewed items, weighing each by its boost (`view_boost`), as
/// `snapshot` holds them.
Xapian::Query view_boosts(cx_database &database, Snapshot &snapshot);

}  // namespace cx
