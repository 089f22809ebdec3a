// What text.cpp offers the other files of the shim.
#pragma once

#include <string>

namespace cx {

/// Folds Latin accents and ligatures to ASCII, keeping case and every other character.
std::string fold_accents(const std::string &text);

/// Folds accents and lower-cases.
std::string fold_lower(const std::string &text);

}  // namespace cx
