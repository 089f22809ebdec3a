// What upgrade.cpp offers the other files of the shim.
#pragma once

#include "schema.hpp"

namespace cx {

/// `document`, of an index in the earlier layout `from`, as format 7 lays it out. From formats 2
/// to 5: each field's words and stems merged into the shared space, their frequencies summed and
/// their positions kept (fields are 100 positions apart in every format), and the earlier formats'
/// own terms dropped. From format 6: the description's `XC` terms dropped. Then the `XE` terms and
/// the beginnings are added: the result has the terms `make_document` gives the same item.
Xapian::Document upgraded_document(const Xapian::Document &document, Layout from);

}  // namespace cx
