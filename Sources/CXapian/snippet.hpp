// What snippet.cpp offers the other files of the shim.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>
#include <xapian.h>

#include "CXapian.h"

namespace cx {

/// What a snippet highlights: plain words, stems (without their `Z`) in any of `stemmers` (the
/// languages the query is read in), and prefixes typed as-you-type. One search's, used by one
/// thread at a time.
struct Highlighter {
    std::vector<std::string> words;
    std::vector<std::string> stems;
    std::vector<std::string> prefixes;
    std::vector<Xapian::Stem> stemmers{Xapian::Stem("english")};

    bool matches(const std::string &folded_lower_word) const;

  private:
    /// Whether a word stems to one of `stems`, for each word stemmed so far: a page's snippets
    /// hold the same words again and again (`the`, `this`, `that` for a stem that begins with
    /// `t`), and a stemmer costs a few hundred instructions a word.
    mutable std::unordered_map<std::string, bool> stemmed_;
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
