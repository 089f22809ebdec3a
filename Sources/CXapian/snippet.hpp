// What snippet.cpp offers the other files of the shim.
#pragma once

#include <string>
#include <vector>
#include <xapian.h>

#include "CXapian.h"

namespace cx {

/// What a snippet highlights: plain words, stems (without their `Z`) in any of `stemmers` (the
/// languages the query is read in), and prefixes typed as-you-type.
struct Highlighter {
    std::vector<std::string> words;
    std::vector<std::string> stems;
    std::vector<std::string> prefixes;
    std::vector<Xapian::Stem> stemmers{Xapian::Stem("english")};

    bool matches(const std::string &folded_lower_word) const;
};

/// A description's text around its first match, and the matched words in it.
struct Snippet {
    /// Plain text; an ellipsis (U+2026) stands where the description was cut.
    std::string text;
    /// Byte ranges of the matches inside `text`, in order, adjacent ones merged.
    std::vector<cx_range> matches;
};

/// The description around the first match, at most `max_chars` characters of it.
Snippet make_snippet(const std::string &text, const Highlighter &highlighter, size_t max_chars = 200);

}  // namespace cx
