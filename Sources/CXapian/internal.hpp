// Everything the shim's C++ files share, one header per file of the shim (errors.hpp for
// errors.cpp, and so on). Nothing here is visible to Swift.
#pragma once

#include "database.hpp"
#include "errors.hpp"
#include "schema.hpp"
#include "text.hpp"
#include "snippet.hpp"
#include "terms.hpp"
#include "query.hpp"
#include "visibility.hpp"
#include "spelling.hpp"
#include "search.hpp"
#include "order.hpp"
#include "columns.hpp"
#include "facets.hpp"
#include "views.hpp"
#include "document.hpp"
#include "stored.hpp"
#include "write.hpp"
#include "bulk.hpp"
#include "read.hpp"
