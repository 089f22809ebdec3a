// Accent folding.

#include "text.hpp"

#include <algorithm>
#include <xapian.h>

#include "errors.hpp"

namespace cx {

namespace {

/// ASCII spellings of U+00C0 … U+017F; an empty entry keeps the character.
const char *const latin_folds[] = {
    // U+00C0
    "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
    // U+00D0
    "D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "TH", "ss",
    // U+00E0
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
    // U+00F0
    "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
    // U+0100
    "A", "a", "A", "a", "A", "a", "C", "c", "C", "c", "C", "c", "C", "c", "D", "d",
    // U+0110
    "D", "d", "E", "e", "E", "e", "E", "e", "E", "e", "E", "e", "G", "g", "G", "g",
    // U+0120
    "G", "g", "G", "g", "H", "h", "H", "h", "I", "i", "I", "i", "I", "i", "I", "i",
    // U+0130
    "I", "i", "IJ", "ij", "J", "j", "K", "k", "k", "L", "l", "L", "l", "L", "l", "L",
    // U+0140
    "l", "L", "l", "N", "n", "N", "n", "N", "n", "n", "N", "n", "O", "o", "O", "o",
    // U+0150
    "O", "o", "OE", "oe", "R", "r", "R", "r", "R", "r", "S", "s", "S", "s", "S", "s",
    // U+0160
    "S", "s", "T", "t", "T", "t", "T", "t", "U", "u", "U", "u", "U", "u", "U", "u",
    // U+0170
    "U", "u", "U", "u", "W", "w", "Y", "y", "Y", "Z", "z", "Z", "z", "Z", "z", "s",
};

bool is_combining_mark(unsigned cp) { return cp >= 0x300 && cp <= 0x36F; }

bool is_ascii(const std::string &text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

std::string fold_accents(const std::string &text) {
    // Most text is ASCII, which has no accents to fold.
    if (is_ascii(text)) return text;
    std::string out;
    out.reserve(text.size());
    for (Xapian::Utf8Iterator it(text); it != Xapian::Utf8Iterator(); ++it) {
        unsigned cp = *it;
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp >= 0xC0 && cp <= 0x17F && latin_folds[cp - 0xC0][0] != '\0') {
            out += latin_folds[cp - 0xC0];
        } else if (!is_combining_mark(cp)) {
            Xapian::Unicode::append_utf8(out, cp);
        }
    }
    return out;
}

std::string fold_lower(const std::string &text) {
    // ASCII folds to itself, and Unicode lower-cases its letters as ASCII does: a snippet folds
    // every word of a description, so this path is most of what it costs.
    if (!is_ascii(text)) return Xapian::Unicode::tolower(fold_accents(text));
    std::string lower(text);
    for (char &c : lower) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return lower;
}

}  // namespace cx

extern "C" cx_status cx_fold_accents(cx_text text, char **out, size_t *out_length, char **out_error) {
    try {
        std::string folded = cx::fold_accents(cx::str(text));
        *out = cx::copy_bytes(folded);
        *out_length = folded.size();
        return CX_OK;
    } catch (...) {
        *out = nullptr;
        return cx::status_from_current_exception(out_error);
    }
}
