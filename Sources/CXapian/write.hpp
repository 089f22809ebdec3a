// What write.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"

namespace cx {

/// `CX_ERR_INVALID_ARGUMENT` for a NULL, closed or read-only handle, else `CX_OK`.
cx_status require_writable(cx_database *database, char **out_error);

/// What every item `database`'s writer stores, as `id`, tells what the index keeps beside Xapian's
/// lists: the postings that enter the impact tiers (tiers.cpp) and the words its readers' typos
/// are looked up in (typos.cpp), both written or recorded when the transaction commits.
void note_stored(cx_database &database, Xapian::docid id, const Xapian::Document &document);

}  // namespace cx
